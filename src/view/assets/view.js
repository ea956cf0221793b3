// The page of `grundy view`: a Leaflet map in a simple (non-geographic) CRS at one pixel per
// cell at zoom 0, tiles from the program (/tile/...), the cell under the pointer from /value.
// Cell (x, y) covers latitudes y..y+1 and longitudes x..x+1 with (0, 0) at the bottom-left,
// or latitudes -(y+1)..-y with it at the top-left.
'use strict';

(async function () {
  const info = await (await fetch('info')).json();
  const $ = (id) => document.getElementById(id);
  const state = { colouring: 'scaled', k: 5, topLeft: false, preperiods: false };
  let view = null;  // [x, y, zoom] from the URL
  readHash();

  const map = L.map('map', {
    crs: L.CRS.Simple, minZoom: info.minZoom, maxZoom: info.maxZoom, zoomSnap: 1,
    attributionControl: false, fadeAnimation: false,
  });
  $('title').textContent = `${info.title}: ${info.rows} rows \u00d7 ${info.cols} columns`;

  // Cell (x, y) <-> the map's coordinates.
  const lat = (y) => (state.topLeft ? -y : y);
  const cellCorner = (x, y) => L.latLng(lat(y), x);
  const cellCenter = (x, y) => L.latLng(lat(y + 0.5), x + 0.5);
  const cellAt = (ll) => [Math.floor(ll.lng), Math.floor(state.topLeft ? -ll.lat : ll.lat)];
  const tableBounds = () => L.latLngBounds(cellCorner(0, 0), cellCorner(info.cols, info.rows));

  const GrundyLayer = L.TileLayer.extend({
    getTileUrl(c) {
      const ty = state.topLeft ? c.y : -c.y - 1;
      return `tile/${state.colouring}/${c.z}/${c.x}/${ty}.png?k=${state.k}&up=${state.topLeft ? 0 : 1}`;
    },
  });
  let layer = null;
  function makeLayer() {
    if (layer) map.removeLayer(layer);
    document.body.dataset.tiles = 'loading';
    layer = new GrundyLayer('', {
      tileSize: info.tileSize, minZoom: info.minZoom, maxZoom: info.maxZoom, noWrap: true,
      bounds: tableBounds(), keepBuffer: 1,
    });
    layer.on('loading', () => { document.body.dataset.tiles = 'loading'; });
    layer.on('load', () => { document.body.dataset.tiles = 'loaded'; });
    layer.addTo(map);
    updateLegend();
  }

  // The legend: the colours from the program (/legend), the ends of the scale here.
  function updateLegend() {
    $('k-label').hidden = state.colouring !== 'mod';
    $('legend-img').src = `legend/${state.colouring}.png?k=${state.k}`;
    const ends = {
      mod: ['0', `${state.k - 1}  (zoomed out: a sample cell)`],
      scaled: ['0', '3y  (zoomed out: the mean)'],
      diff: ['0', `${info.diffMax}, log scale  (zoomed out: the mean)`],
      ppos: ['N', 'P  (zoomed out: share \u00d7 block side)'],
    }[state.colouring];
    $('legend-text').innerHTML = '';
    for (const t of ends) {
      const span = document.createElement('span');
      span.textContent = t;
      $('legend-text').appendChild(span);
    }
  }

  // The view in the URL, so that a link shows the same.
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    if (['mod', 'scaled', 'diff', 'ppos'].includes(p.get('c'))) state.colouring = p.get('c');
    const k = parseInt(p.get('k'), 10);
    if (k >= 2 && k <= 64) state.k = k;
    state.topLeft = p.get('o') === 'tl';
    state.preperiods = p.get('pp') === '1';
    const x = parseFloat(p.get('x')), y = parseFloat(p.get('y')), z = parseInt(p.get('z'), 10);
    if (isFinite(x) && isFinite(y) && isFinite(z)) view = [x, y, z];
  }
  let written = '';
  function writeHash() {
    const c = map.getCenter();
    const y = state.topLeft ? -c.lat : c.lat;
    const p = new URLSearchParams({
      x: c.lng.toFixed(2), y: y.toFixed(2), z: map.getZoom(), c: state.colouring, k: state.k,
      o: state.topLeft ? 'tl' : 'bl', pp: state.preperiods ? 1 : 0,
    });
    written = '#' + p.toString();
    history.replaceState(null, '', written);
  }
  // A link pasted into the address bar of an open page.
  window.addEventListener('hashchange', () => {
    if (location.hash === written) return;
    view = null;
    readHash();
    syncControls();
    if (view) map.setView(L.latLng(lat(view[1]), view[0]), view[2], { animate: false });
    makeLayer();
    updatePreperiods();
  });
  map.on('moveend zoomend', writeHash);

  // Each row's preperiod as one line through (preperiod, row) from row to row.
  let preperiodLine = null;
  let periods = null;
  async function updatePreperiods() {
    if (preperiodLine) { map.removeLayer(preperiodLine); preperiodLine = null; }
    if (!state.preperiods || !info.periods) return;
    if (!periods) periods = await (await fetch('periods')).json();
    const points = periods.map(([row, pre]) => L.latLng(lat(row + 0.5), pre));
    preperiodLine = L.polyline(points, { color: '#000', weight: 2, interactive: false }).addTo(map);
  }
  if (info.periods) $('preperiod-label').hidden = false;

  // The cell under the pointer.
  let hovered = '';
  async function showCell(x, y) {
    const key = `${x},${y}`;
    if (key === hovered) return;
    hovered = key;
    if (x < 0 || y < 0 || x >= info.cols || y >= info.rows) { $('hover').textContent = ' '; return; }
    const r = await fetch(`value?x=${x}&y=${y}`);
    if (!r.ok || hovered !== key) return;
    const v = await r.json();
    let text = `x = ${v.x}, y = ${v.y}, g = ${v.g}`;
    if (v.period !== undefined) text += `\nrow ${v.y}: period ${v.period}, preperiod ${v.preperiod}`;
    $('hover').textContent = text;
  }
  map.on('mousemove', (e) => { const [x, y] = cellAt(e.latlng); showCell(x, y); });

  let marker = null;
  $('goto-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const m = $('goto').value.match(/^\s*\(?\s*(\d+)\s*[, ]\s*(\d+)\s*\)?\s*$/);
    if (!m) return;
    const x = Math.min(+m[1], info.cols - 1), y = Math.min(+m[2], info.rows - 1);
    if (marker) map.removeLayer(marker);
    marker = L.rectangle(L.latLngBounds(cellCorner(x, y), cellCorner(x + 1, y + 1)),
                         { color: '#000', weight: 2, fill: false, interactive: false }).addTo(map);
    map.setView(cellCenter(x, y), Math.max(map.getZoom(), 4));
    showCell(x, y);
  });

  function syncControls() {
    $('colouring').value = state.colouring;
    $('k').value = state.k;
    $('top-left').checked = state.topLeft;
    $('preperiods').checked = state.preperiods;
  }
  syncControls();
  $('colouring').addEventListener('change', () => { state.colouring = $('colouring').value; makeLayer(); writeHash(); });
  $('k').addEventListener('change', () => {
    const k = parseInt($('k').value, 10);
    if (k >= 2 && k <= 64) { state.k = k; makeLayer(); writeHash(); }
  });
  $('top-left').addEventListener('change', () => {
    const c = map.getCenter(), z = map.getZoom();
    state.topLeft = $('top-left').checked;
    map.setView(L.latLng(-c.lat, c.lng), z, { animate: false });
    makeLayer(); updatePreperiods(); writeHash();
  });
  $('preperiods').addEventListener('change', () => { state.preperiods = $('preperiods').checked; updatePreperiods(); writeHash(); });

  if (view) map.setView(L.latLng(lat(view[1]), view[0]), view[2], { animate: false });
  else map.fitBounds(tableBounds(), { animate: false });
  makeLayer();
  updatePreperiods();
  // For the tests and the console.
  window.grundyView = { map, info, state, cellCenter, cellCorner };
})();
