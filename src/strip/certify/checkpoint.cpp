// The checkpoint file (checkpoint.hpp).
#include "strip/certify/checkpoint.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>

#include "base/atomic_file.hpp"
#include "base/file_sync.hpp"
#include "grundy/error.hpp"

namespace grundy::strip {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'G', 'R', 'U', 'N', 'D', 'Y', 'P', 'K'};
// Version 3 added the settled rows, version 4 the rows of a rank's part (rank_link.hpp), version 5
// phase 2's rows certified in phase 1, which its ring leaves out, version 6 the compact form (a
// seed state instead of the ring); a version 2 file reads as one with none settled yet, 2 and 3
// as all rows of one process, 2 to 4 with every row ringed, and 2 to 5 with the ring. Version 7
// added a ring laid out again (SearchState::ring_from, low_len), with phase 1's certified rows
// below it, which 2 to 6 read as none.
constexpr uint32_t kVersion = 7;
// The first line of a manifest (checkpoint.hpp).
constexpr char kManifestMagic[] = "grundy periods checkpoint manifest";
// Version 2 added each rank's rows (version 1 manifests had a fixed cut, now gone).
constexpr uint64_t kManifestVersion = 2;

void put64(std::string& s, uint64_t v) {
    s.append(reinterpret_cast<const char*>(&v), 8);
}
void put_words(std::string& s, const std::vector<uint64_t>& w) {
    put64(s, w.size());
    if (!w.empty()) s.append(reinterpret_cast<const char*>(w.data()), w.size() * 8);
}

struct Reader {
    const std::string& s;
    size_t at = 0;
    const std::string& path;
    void need(size_t n) {
        if (s.size() - at < n) throw Error("checkpoint " + path + " is truncated or malformed");
    }
    uint64_t u64() {
        need(8);
        uint64_t v;
        std::memcpy(&v, s.data() + at, 8);
        at += 8;
        return v;
    }
    std::vector<uint64_t> words(uint64_t expected) {
        const uint64_t n = u64();
        if (n != expected) throw Error("checkpoint " + path + " has a state of the wrong size");
        need(n * 8);
        std::vector<uint64_t> w(n);
        if (n) std::memcpy(w.data(), s.data() + at, n * 8);  // data() may be null when n = 0
        at += n * 8;
        return w;
    }
};

// True if `s` is one or more decimal digits.
bool all_digits(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The column of a part named NAME.rankR.COLUMN, given `rest`, what follows NAME; kNone for any
// other name.
uint64_t part_column(std::string_view rest) {
    constexpr std::string_view rank = ".rank";
    if (rest.substr(0, rank.size()) != rank) return kNone;
    rest.remove_prefix(rank.size());
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || !all_digits(rest.substr(0, dot)) ||
        !all_digits(rest.substr(dot + 1)) || rest.size() - dot > 20)  // at most 19 digits
        return kNone;
    return std::stoull(std::string(rest.substr(dot + 1)));
}

uLong crc_of(uLong c, const char* data, uint64_t n) {
    // In pieces: uInt may be 32 bits and the ring can exceed 4 GiB.
    for (uint64_t off = 0; off < n; off += (1u << 30)) {
        const uint64_t k = std::min<uint64_t>(n - off, 1u << 30);
        c = crc32(c, reinterpret_cast<const Bytef*>(data + off), static_cast<uInt>(k));
    }
    return c;
}

// The ring's values in the file: the rows it holds (SearchState::rows_in_ring) of every ring
// column, whatever room the ring has for other rows (SearchState::ring_first); none in the
// compact form (SearchState::seed).
uint64_t ring_values(const SearchState& p) {
    return p.ring_len && !p.seed ? (p.end_row - p.rows_in_ring()) * p.ring_len : 0;
}

// Whether the file carries the results of the unringed rows: in phase 2, and in phase 1 the rows
// of a low ring (search_state.hpp); else the ring gives every row's again.
bool carries_final_rows(const SearchState& p) {
    return p.phase == 2 || p.low_len;
}

// The rows the file carries the results of.
uint64_t final_count(const SearchState& p) {
    return carries_final_rows(p) ? std::min<uint64_t>(p.final_rows.size(), p.unringed_rows) : 0;
}

// The blocks of the rows final_count gives (search_state.hpp), when they were kept, as 16-bit
// values (g - x + 2y <= 3y fits, kMaxStripRows): the file's tail, after the ring.
std::vector<uint16_t> final_blocks(const SearchState& p) {
    std::vector<uint16_t> values;
    for (uint64_t y = 0; y < final_count(p); ++y)
        values.insert(values.end(), p.final_rows[y].block.begin(), p.final_rows[y].block.end());
    return values;
}

// Calls write(bytes, n) for the ring's values in file order: straight from the ring when it
// holds exactly this process's rows, else one piece of whole columns at a time.
template <class Write>
void for_each_ring_piece(const SearchState& p, Write&& write) {
    const uint64_t lo = p.rows_in_ring(), rows = p.end_row - lo, n = ring_values(p);
    if (n == 0) return;
    if (p.ring_first == lo && p.ring_stride == rows) {
        write(reinterpret_cast<const char*>(p.ring.data()), n * 2);
        return;
    }
    const uint64_t columns = std::max<uint64_t>(1, (uint64_t{1} << 22) / rows);
    std::vector<uint16_t> piece;
    for (uint64_t x0 = 0; x0 < p.ring_len; x0 += columns) {
        const uint64_t x1 = std::min(p.ring_len, x0 + columns);
        piece.resize((x1 - x0) * rows);
        for (uint64_t x = x0; x < x1; ++x)
            std::memcpy(piece.data() + (x - x0) * rows, p.ring.data() + p.ring_index(x, lo),
                        rows * 2);
        write(reinterpret_cast<const char*>(piece.data()), piece.size() * 2);
    }
}

// File layout: "GRUNDYPK", u32 version, u32 crc32 of the body, u64 rows, u64 body size; the body
// is the fields below, the ring last (written from its own buffer, never copied).
std::string encode_head(const SearchState& p, uint64_t block_values) {
    std::string body;
    put64(body, p.phase);
    put64(body, p.seed ? 1 : 0);  // the form: 1 compact
    put64(body, p.strip.words.empty() && !p.seed ? kNone : p.strip.column);
    put_words(body, p.seed ? std::vector<uint64_t>{} : p.strip.words);
    put64(body, p.has_saved ? p.saved.column : kNone);
    put64(body, p.power);
    put_words(body, p.has_saved ? p.saved.words : std::vector<uint64_t>{});
    put64(body, p.found ? 1 : 0);
    put64(body, p.x0);
    put64(body, p.period);
    put64(body, p.ring_len);
    put_words(body, p.last_mismatch);
    put64(body, p.settled_rows);
    put64(body, p.settled_period);
    put64(body, p.settled_since.size());
    for (const auto& [rows, column] : p.settled_since) put64(body, rows), put64(body, column);
    put64(body, p.first_row);
    put64(body, p.end_row);
    put64(body, p.ring_from);
    put64(body, p.low_len);
    put_words(body, p.low_mismatch);  // empty without a low ring (start_second_pass clears it)
    put64(body, p.unringed_rows);
    const uint64_t finals = final_count(p);
    put64(body, finals);
    for (uint64_t y = 0; y < finals; ++y)
        put64(body, p.final_rows[y].periodicity->preperiod),
            put64(body, p.final_rows[y].periodicity->period);
    put64(body, block_values);
    put64(body, ring_values(p));
    if (p.seed) {
        put64(body, p.seed->words.empty() ? kNone : p.seed->column);
        put_words(body, p.seed->words);
        put64(body, state_crc(p.strip.words));
    }
    return body;
}

// The compact form's tail of the head (version 6): the seed, checked as far as the file can say
// (a state of this strip at least a ring length before the live one, in phase 1 of one process).
void read_seed(Reader& r, SearchState& p, uint64_t rows, uint64_t state_words,
               const std::string& bad) {
    const uint64_t column = r.u64();
    auto seed = std::make_shared<StripSnapshot>();
    seed->rows = rows;
    seed->column = column;
    seed->words = r.words(column == kNone ? 0 : state_words);
    p.strip_check = static_cast<uint32_t>(r.u64());
    // At least a ring length back, or where a ring laid out again starts (keep_seed).
    const bool starts_ring = p.ring_from > 0 && column != kNone && column + 1 == p.ring_from;
    if (p.phase != 1 || p.ring_len == 0 || p.first_row != 0 || p.end_row != rows ||
        p.strip.column == kNone ||
        (column != kNone && column + p.ring_len > p.strip.column && !starts_ring) ||
        (column == kNone && p.ring_from > 0))
        throw Error(bad + "is corrupt (seed)");
    p.seed = std::move(seed);
}

// A ring laid out again (version 7): where it starts, and the length of the low ring below it, in
// phase 1 of one process (grow_ring), whose settled rows' periods divide both rings.
void read_longer_ring(Reader& r, SearchState& p, uint64_t rows, const std::string& bad) {
    p.ring_from = r.u64();
    p.low_len = r.u64();
    p.low_mismatch = r.words(p.low_len ? p.end_row - p.first_row : 0);
    if (p.ring_from == 0 && p.low_len == 0) return;
    if (p.phase != 1 || p.first_row != 0 || p.end_row != rows || p.low_len == 0 ||
        p.ring_len % p.low_len != 0 || p.ring_len == p.low_len || p.ring_from > (uint64_t{1} << 41))
        throw Error(bad + "is corrupt (ring)");
}

// Phase 2's rows certified in phase 1 (version 5): at most the unringed rows, each with a period,
// on the process that has them; their blocks' values come after the ring (`block_values`).
void read_final_rows(Reader& r, SearchState& p, uint64_t rows, uint64_t& block_values,
                     const std::string& bad) {
    p.unringed_rows = r.u64();
    const uint64_t finals = r.u64();
    if (p.unringed_rows > rows || (!carries_final_rows(p) && p.unringed_rows) ||
        (finals && finals != p.unringed_rows) || (p.low_len && finals != p.unringed_rows))
        throw Error(bad + "is corrupt (certified rows)");
    uint64_t periods = 0;
    p.final_rows.resize(finals);
    for (uint64_t y = 0; y < finals; ++y) {
        RowPeriod& row = p.final_rows[y];
        row.row = y;
        row.certified = true;
        Periodicity& f = row.periodicity.emplace();
        f.preperiod = r.u64();
        f.period = r.u64();
        if (f.period == 0 || f.period > (uint64_t{1} << 40))
            throw Error(bad + "is corrupt (certified rows)");
        periods += f.period;
    }
    block_values = r.u64();
    if (block_values && block_values != periods) throw Error(bad + "is corrupt (certified rows)");
}

// The blocks' values of the tail into p.final_rows (each row's period of them).
void set_final_blocks(SearchState& p, const std::vector<uint16_t>& values) {
    if (values.empty()) return;
    uint64_t at = 0;
    for (RowPeriod& row : p.final_rows) {
        row.block.assign(values.begin() + static_cast<int64_t>(at),
                         values.begin() + static_cast<int64_t>(at + row.periodicity->period));
        at += row.periodicity->period;
    }
}

// The settled rows, checked as far as the file can say: at most `rows`, growing, in phase 1, with
// a period that divides the ring.
void read_settled(Reader& r, SearchState& p, uint64_t rows, const std::string& bad) {
    p.settled_rows = r.u64();
    p.settled_period = r.u64();
    const uint64_t n = r.u64();
    if (n > rows) throw Error(bad + "is corrupt (settled rows)");
    uint64_t last = 0;
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t m = r.u64(), column = r.u64();
        if (m <= last || m > rows) throw Error(bad + "is corrupt (settled rows)");
        p.settled_since.emplace_back(m, column);
        last = m;
    }
    if (p.settled_rows != last ||
        (last && (p.phase != 1 || p.settled_period == 0 || p.ring_len % p.settled_period != 0)))
        throw Error(bad + "is corrupt (settled rows)");
}

}  // namespace

uint32_t state_crc(const std::vector<uint64_t>& words) {
    return static_cast<uint32_t>(crc_of(
        crc32(0, nullptr, 0), reinterpret_cast<const char*>(words.data()), words.size() * 8));
}

void write_checkpoint(const std::string& path, const SearchState& p, uint64_t rows,
                      const std::function<void()>& before_commit) {
    // A low ring is swept again from the seed, never written (ring_seed.cpp).
    if (p.phase == 1 && p.low_len && !p.seed)
        throw Error("internal: a checkpoint of a ring laid out again without its seed");
    const std::vector<uint16_t> blocks = final_blocks(p);
    const std::string body = encode_head(p, blocks.size());
    const uint64_t ring_bytes = ring_values(p) * 2, tail_bytes = blocks.size() * 2;
    const char* tail = reinterpret_cast<const char*>(blocks.data());
    uLong crc = crc_of(crc32(0, nullptr, 0), body.data(), body.size());
    for_each_ring_piece(p, [&](const char* data, uint64_t n) { crc = crc_of(crc, data, n); });
    crc = crc_of(crc, tail, tail_bytes);
    const auto checksum = static_cast<uint32_t>(crc);
    std::string header(kMagic, 8);
    const uint32_t version = kVersion;
    header.append(reinterpret_cast<const char*>(&version), 4);
    header.append(reinterpret_cast<const char*>(&checksum), 4);
    put64(header, rows);
    put64(header, body.size() + ring_bytes + tail_bytes);

    base::AtomicFile out(path, "checkpoint", /*direct=*/true);
    out.write(header.data(), header.size());
    out.write(body.data(), body.size());
    for_each_ring_piece(p, [&](const char* data, uint64_t n) { out.write(data, n); });
    if (tail_bytes) out.write(tail, tail_bytes);
    out.flush();
    if (before_commit) before_commit();
    out.commit();
}

SearchState load_checkpoint(const std::string& path, uint64_t rows, uint64_t state_words,
                            uint64_t first_row, uint64_t end_row) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read checkpoint " + path);
    const std::string bad = "checkpoint " + path + " ";
    char header[32];
    if (!in.read(header, 32) || std::memcmp(header, kMagic, 8) != 0) {
        if (std::memcmp(header, kManifestMagic, 8) == 0)
            throw Error(bad + "is the manifest of a run of " +
                        std::to_string(read_manifest(path).ranks) +
                        " MPI ranks: resume it with mpirun and grundy-mpi, with as many ranks");
        throw Error(bad + "is not a grundy periods checkpoint");
    }
    uint32_t version, checksum;
    uint64_t file_rows, size;
    std::memcpy(&version, header + 8, 4);
    std::memcpy(&checksum, header + 12, 4);
    std::memcpy(&file_rows, header + 16, 8);
    std::memcpy(&size, header + 24, 8);
    if (version < 2 || version > kVersion)
        throw Error(bad + "has format version " + std::to_string(version) + ", this program " +
                    "reads version " + std::to_string(kVersion));
    if (file_rows != rows)
        throw ArgumentError(ArgumentError::literal(bad) + "is for {rows} " +
                            std::to_string(file_rows) + ", not " + std::to_string(rows));
    std::error_code ec;
    const uint64_t file_size = fs::file_size(path, ec);
    if (ec || file_size != size + 32) throw Error(bad + "is truncated (corrupt)");
    // Everything but the ring is small: read it, parse it, then read the ring into its buffer.
    const uint64_t head_max = std::min<uint64_t>(size, 64 + 16 * (state_words + 4 * rows + 16));
    std::string head(head_max, '\0');
    if (!in.read(head.data(), static_cast<std::streamsize>(head_max)))
        throw Error(bad + "is truncated (corrupt)");
    Reader r{head, 0, path};
    SearchState p;
    const uint64_t phase = r.u64();
    if (phase != 1 && phase != 2) throw Error(bad + "is corrupt (phase)");
    p.phase = static_cast<uint32_t>(phase);
    const uint64_t form = version >= 6 ? r.u64() : 0;
    if (form > 1) throw Error(bad + "is corrupt (form)");
    const uint64_t column = r.u64();
    p.strip.rows = rows;
    p.strip.words = r.words(column == kNone || form == 1 ? 0 : state_words);
    p.strip.column = column;
    const uint64_t saved_column = r.u64();
    p.power = r.u64();
    p.has_saved = saved_column != kNone;
    p.saved.rows = rows;
    p.saved.column = saved_column;
    p.saved.words = r.words(p.has_saved ? state_words : 0);
    p.found = r.u64() != 0;
    p.x0 = r.u64();
    p.period = r.u64();
    p.ring_len = r.u64();
    const uint64_t part_rows = end_row - first_row;
    p.last_mismatch = r.words(p.ring_len ? part_rows : 0);
    if (version >= 3) read_settled(r, p, rows, bad);
    p.first_row = version >= 4 ? r.u64() : 0;
    p.end_row = version >= 4 ? r.u64() : rows;
    if (p.first_row != first_row || p.end_row != end_row)
        throw Error(bad + "holds rows " + std::to_string(p.first_row) + ".." +
                    std::to_string(p.end_row - 1) + ", not " + std::to_string(first_row) + ".." +
                    std::to_string(end_row - 1) + " (corrupt, or of another cut of the rows)");
    if (version >= 7) read_longer_ring(r, p, rows, bad);
    uint64_t block_values = 0;
    if (version >= 5) read_final_rows(r, p, rows, block_values, bad);
    const uint64_t n = r.u64();
    if (form == 1) read_seed(r, p, rows, state_words, bad);
    // The ring's size without overflow: a damaged ring_len must not wrap rows * ring_len and
    // n * 2 into values that match the file, then ask for an impossible allocation.
    uint64_t ring_size = 0;
    const uint64_t rest = (size - std::min(size, r.at)) / 2;
    if (__builtin_mul_overflow(end_row - p.rows_in_ring(), p.ring_len, &ring_size) ||
        n != (p.seed ? 0 : ring_size) || n > rest || block_values > rest ||
        (p.found && p.period == 0) || (p.phase == 2 && !p.found) ||
        r.at + n * 2 + block_values * 2 != size)
        throw Error(bad + "is corrupt (sizes)");
    uLong c = crc_of(crc32(0, nullptr, 0), head.data(), r.at);
    p.ring.assign(n);
    p.ring_first = p.rows_in_ring();
    p.ring_stride = end_row - p.ring_first;
    // The ring, then the blocks' values: they start inside `head`; the rest follows in the stream.
    uint64_t in_head = head_max - r.at;
    const char* at = head.data() + r.at;
    const auto read_bytes = [&](char* out, uint64_t bytes) {
        const uint64_t from_head = std::min(in_head, bytes);
        if (from_head) std::memcpy(out, at, from_head);
        at += from_head, in_head -= from_head;
        if (bytes > from_head &&
            !in.read(out + from_head, static_cast<std::streamsize>(bytes - from_head)))
            throw Error(bad + "is truncated (corrupt)");
        c = crc_of(c, out, bytes);
    };
    read_bytes(reinterpret_cast<char*>(p.ring.data()), n * 2);
    std::vector<uint16_t> blocks(block_values);
    read_bytes(reinterpret_cast<char*>(blocks.data()), block_values * 2);
    if (static_cast<uint32_t>(c) != checksum) throw Error(bad + "is corrupt (checksum mismatch)");
    set_final_blocks(p, blocks);
    return p;
}

std::string rank_part_path(const std::string& manifest, int rank, uint64_t column) {
    return manifest + ".rank" + std::to_string(rank) + "." + std::to_string(column);
}

void write_manifest(const std::string& path, const Manifest& m) {
    base::AtomicTextFile out(path);
    out << kManifestMagic << " " << kManifestVersion << "\nrows " << m.rows << "\nranks " << m.ranks
        << "\ncolumn " << m.column << "\nstarts";
    for (const uint64_t s : m.starts) out << " " << s;
    out << "\n";
    out.commit();
}

bool is_manifest(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    return in && std::getline(in, line) && line.rfind(kManifestMagic, 0) == 0;
}

uint64_t remove_stray_parts(const std::string& manifest, uint64_t column) {
    const fs::path path(manifest);
    const fs::path folder = base::folder_of(manifest);
    const std::string name = path.filename().string();
    std::vector<fs::path> strays;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (file.size() <= name.size() || file.compare(0, name.size(), name) != 0) continue;
        const std::string_view rest = std::string_view(file).substr(name.size());
        constexpr std::string_view tmp = ".tmp";
        const bool unfinished =
            rest.size() >= tmp.size() && rest.substr(rest.size() - tmp.size()) == tmp;
        const uint64_t part =
            part_column(unfinished ? rest.substr(0, rest.size() - tmp.size()) : rest);
        // NAME.tmp: a manifest never put in place; NAME.rankR.COLUMN.tmp: a part never put in
        // place; NAME.rankR.COLUMN: a part of a save that no manifest names.
        if (unfinished ? rest == tmp || part != kNone : part != kNone && part != column)
            strays.push_back(it->path());
    }
    uint64_t removed = 0;
    for (const fs::path& stray : strays) removed += fs::remove(stray, ec) ? 1 : 0;
    return removed;
}

Manifest read_manifest(const std::string& path) {
    if (!is_manifest(path)) throw Error("checkpoint manifest " + path + " is not a manifest");
    std::ifstream in(path);
    std::string line, key;
    std::getline(in, line);
    const std::string bad = "checkpoint manifest " + path + " ";
    if (line == std::string(kManifestMagic) + " 1")
        throw Error(bad +
                    "was written by an earlier grundy-mpi, which cut the rows otherwise: "
                    "finish that run with the build that started it, or start again");
    if (line != std::string(kManifestMagic) + " " + std::to_string(kManifestVersion))
        throw Error(bad + "has another format version (" + line + ")");
    Manifest m;
    auto field = [&](const char* name, uint64_t& v) {
        if (!(in >> key >> v) || key != name) throw Error(bad + "is corrupt (" + name + ")");
    };
    field("rows", m.rows);
    field("ranks", m.ranks);
    field("column", m.column);
    if (!(in >> key) || key != "starts" || m.ranks == 0 || m.ranks > (1u << 24))
        throw Error(bad + "is corrupt (starts)");
    m.starts.resize(m.ranks + 1);
    for (uint64_t& s : m.starts)
        if (!(in >> s)) throw Error(bad + "is corrupt (starts)");
    for (uint64_t r = 0; r < m.ranks; ++r)
        if (m.starts[r] >= m.starts[r + 1]) throw Error(bad + "is corrupt (starts)");
    if (m.starts.front() != 0 || m.starts.back() != m.rows)
        throw Error(bad + "is corrupt (starts)");
    return m;
}

}  // namespace grundy::strip
