// The direct-write file driver (direct_writes.hpp): a thin HDF5 driver in front of sec2. HDF5
// calls its callbacks with the library's own locks held and absolute file addresses; each one
// hands the call to the sec2 file it opened (the public H5FD* calls), except the whole pages of
// large raw data writes, which it writes itself through a second descriptor opened O_DIRECT.
#include "io/direct_writes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "base/big_memory.hpp"
#include "base/direct_io.hpp"

namespace grundy::io {
namespace {

constexpr uint64_t kAlign = base::kDirectAlign;
// Raw writes with fewer whole pages than this go through sec2 whole (small chunks), unless they
// continue what is being gathered.
constexpr uint64_t kDirectMin = 4 * kAlign;
// The aligned buffer raw data is gathered in (direct_writes.hpp): one 2 MiB page where the
// system gives huge pages. A direct write's pages become its request's segments, of which a
// disk takes a limited number (a virtio disk 254): from 4 KiB pages a write of 1 MiB went as
// two requests of a segment a page; one physically contiguous page makes a few segments. 330
// MB so written took 0.19-0.23 s where it took 0.41-0.45 s (docs/benchmarks.md).
constexpr size_t kBounceBytes = size_t{2} << 20;

struct DirectFile {
    H5FD_t pub;                // HDF5's part: must come first
    H5FD_t* inner = nullptr;   // the sec2 file, which does everything else
    int fd = -1;               // the same file opened O_DIRECT; -1: not (any more)
    void* bounce = nullptr;    // kBounceBytes, aligned to kAlign
    uint64_t pending_at = 0;   // the file address of bounce[0], a multiple of kAlign
    size_t pending = 0;        // raw data in the bounce buffer, not yet written
    uint64_t direct_end = 0;   // end of the furthest direct write (sec2 knows only its own)
    DirectWriteCounts counts;  // what went where
};

// The open files by sec2's descriptor, the one handle HDF5 gives out (direct_write_counts).
std::mutex& open_files_mutex() {
    static std::mutex m;
    return m;
}
std::map<int, const DirectFile*>& open_files() {
    static std::map<int, const DirectFile*> files;
    return files;
}
int sec2_descriptor(H5FD_t* inner) {
    void* handle = nullptr;
    return H5FDget_vfd_handle(inner, H5P_DEFAULT, &handle) >= 0 && handle
               ? *static_cast<int*>(handle)
               : -1;
}

DirectFile* as_direct(H5FD_t* file) {
    return reinterpret_cast<DirectFile*>(file);
}
const DirectFile* as_direct(const H5FD_t* file) {
    return reinterpret_cast<const DirectFile*>(file);
}

void stop_direct(DirectFile* f) {
    if (f->fd >= 0) ::close(f->fd);
    f->fd = -1;
    f->counts.direct_refused = true;
}

H5FD_t* open_direct(const char* name, unsigned flags, hid_t, haddr_t maxaddr) {
    H5Handle sec2(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!sec2.valid() || H5Pset_fapl_sec2(sec2.get()) < 0) return nullptr;
    // HDF5 first tries to open a file it is asked to create, to see whether it exists: that
    // failure is an answer, not an error to print. A real one fails the caller's call.
    H5FD_t* inner = nullptr;
    H5E_BEGIN_TRY {
        inner = H5FDopen(name, flags, sec2.get(), maxaddr);
    }
    H5E_END_TRY;
    if (!inner) return nullptr;
    auto* f = new (std::nothrow) DirectFile{};
    if (!f) {
        H5FDclose(inner);
        return nullptr;
    }
    f->inner = inner;
    {
        std::lock_guard<std::mutex> lock(open_files_mutex());
        open_files()[sec2_descriptor(inner)] = f;
    }
    if (flags & H5F_ACC_RDWR) {
        f->fd = ::open(name, O_WRONLY | O_DIRECT | O_CLOEXEC);
        if (f->fd >= 0) f->bounce = base::try_huge_alloc(kBounceBytes);
        if (!f->bounce) stop_direct(f);
    }
    return &f->pub;
}

herr_t write_through_sec2(DirectFile* f, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                          const uint8_t* buf) {
    if (size == 0) return 0;
    if (type == H5FD_MEM_DRAW) f->counts.buffered += size;
    return H5FDwrite(f->inner, type, dxpl, addr, size, buf);
}

// Writes the bounce buffer's first n bytes (a multiple of kAlign) at pending_at through the
// O_DIRECT descriptor, or through sec2 where the file system refuses direct I/O. Returns false
// with errno set where it failed.
bool write_bounce(DirectFile* f, hid_t dxpl, size_t n) {
    const auto* data = static_cast<const uint8_t*>(f->bounce);
    if (f->fd >= 0) {
        if (base::write_direct(f->fd, data, n, f->pending_at) == n) {
            f->direct_end = std::max(f->direct_end, f->pending_at + n);
            f->counts.direct += n;
            ++f->counts.direct_writes;
            return true;
        }
        if (errno != EINVAL) return false;  // a full disk, an I/O error: HDF5 reports the write
        stop_direct(f);                     // the file system refuses: sec2 from now on
    }
    return write_through_sec2(f, H5FD_MEM_DRAW, dxpl, f->pending_at, n, data) >= 0;
}

// Writes what the bounce buffer holds: its whole pages directly, the part page after them
// through sec2.
bool flush_pending(DirectFile* f, hid_t dxpl) {
    if (f->pending == 0) return true;
    const size_t whole = f->pending / kAlign * kAlign, rest = f->pending - whole;
    const auto* data = static_cast<const uint8_t*>(f->bounce);
    f->pending = 0;
    if (whole > 0 && !write_bounce(f, dxpl, whole)) return false;
    return write_through_sec2(f, H5FD_MEM_DRAW, dxpl, f->pending_at + whole, rest, data + whole) >=
           0;
}

// Adds n bytes of raw data at pending_at + pending, writing the buffer out whenever it fills.
bool gather(DirectFile* f, hid_t dxpl, const uint8_t* data, size_t n) {
    while (n > 0) {
        const size_t k = std::min(n, kBounceBytes - f->pending);
        std::memcpy(static_cast<uint8_t*>(f->bounce) + f->pending, data, k);
        f->pending += k;
        data += k;
        n -= k;
        if (f->pending == kBounceBytes) {
            f->pending = 0;
            if (!write_bounce(f, dxpl, kBounceBytes)) return false;
            f->pending_at += kBounceBytes;
        }
    }
    return true;
}

// A raw data write right after the last one is gathered; any other write first has what is
// gathered written out. A large raw write starts a new gathering at its first whole page, its
// head going through sec2: no page is ever written both directly and through the page cache.
herr_t write_direct(H5FD_t* file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                    const void* buffer) {
    DirectFile* f = as_direct(file);
    const auto* buf = static_cast<const uint8_t*>(buffer);
    if (type == H5FD_MEM_DRAW && f->pending > 0 && addr == f->pending_at + f->pending)
        return gather(f, dxpl, buf, size) ? 0 : -1;
    if (!flush_pending(f, dxpl)) return -1;
    const uint64_t first = (addr + kAlign - 1) / kAlign * kAlign;  // the whole pages inside
    const uint64_t last = (addr + size) / kAlign * kAlign;
    if (f->fd < 0 || type != H5FD_MEM_DRAW || last < first + kDirectMin)
        return write_through_sec2(f, type, dxpl, addr, size, buf);
    if (write_through_sec2(f, type, dxpl, addr, first - addr, buf) < 0) return -1;
    f->pending_at = first;
    return gather(f, dxpl, buf + (first - addr), addr + size - first) ? 0 : -1;
}

herr_t close_direct(H5FD_t* file) {
    DirectFile* f = as_direct(file);
    const bool written = flush_pending(f, H5P_DEFAULT);
    {
        std::lock_guard<std::mutex> lock(open_files_mutex());
        open_files().erase(sec2_descriptor(f->inner));
    }
    const herr_t rc = H5FDclose(f->inner) < 0 || !written ? -1 : 0;
    if (f->fd >= 0) ::close(f->fd);
    std::free(f->bounce);
    delete f;
    return rc;
}

herr_t read_direct(H5FD_t* file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                   void* buf) {
    DirectFile* f = as_direct(file);
    if (addr < f->pending_at + f->pending && addr + size > f->pending_at && !flush_pending(f, dxpl))
        return -1;
    return H5FDread(f->inner, type, dxpl, addr, size, buf);
}

int cmp_direct(const H5FD_t* a, const H5FD_t* b) {
    return H5FDcmp(as_direct(a)->inner, as_direct(b)->inner);
}

herr_t query_direct(const H5FD_t* file, unsigned long* flags) {
    if (!file) {  // the driver's features before any file is open: sec2's
        return H5FDdriver_query(H5FD_SEC2, flags);
    }
    return H5FDquery(as_direct(file)->inner, flags) < 0 ? -1 : 0;
}

haddr_t get_eoa_direct(const H5FD_t* file, H5FD_mem_t type) {
    return H5FDget_eoa(as_direct(file)->inner, type);
}

herr_t set_eoa_direct(H5FD_t* file, H5FD_mem_t type, haddr_t addr) {
    return H5FDset_eoa(as_direct(file)->inner, type, addr);
}

haddr_t get_eof_direct(const H5FD_t* file, H5FD_mem_t type) {
    const DirectFile* f = as_direct(file);
    const haddr_t eof = H5FDget_eof(f->inner, type);
    return eof == HADDR_UNDEF ? eof
                              : std::max<haddr_t>({eof, f->direct_end, f->pending_at + f->pending});
}

herr_t get_handle_direct(H5FD_t* file, hid_t fapl, void** handle) {
    return H5FDget_vfd_handle(as_direct(file)->inner, fapl, handle);
}

herr_t flush_direct(H5FD_t* file, hid_t dxpl, hbool_t closing) {
    DirectFile* f = as_direct(file);
    if (!flush_pending(f, dxpl)) return -1;
    return H5FDflush(f->inner, dxpl, closing);
}

herr_t truncate_direct(H5FD_t* file, hid_t dxpl, hbool_t closing) {
    DirectFile* f = as_direct(file);
    if (!flush_pending(f, dxpl)) return -1;
    return H5FDtruncate(f->inner, dxpl, closing);
}

herr_t lock_direct(H5FD_t* file, hbool_t rw) {
    return H5FDlock(as_direct(file)->inner, rw);
}
herr_t unlock_direct(H5FD_t* file) {
    return H5FDunlock(as_direct(file)->inner);
}

H5FD_class_t direct_class() {
    H5FD_class_t c{};
    c.name = "grundy_direct";
    c.maxaddr = (static_cast<haddr_t>(1) << (8 * sizeof(off_t) - 1)) - 1;  // sec2's
    c.fc_degree = H5F_CLOSE_WEAK;
    c.open = open_direct;
    c.close = close_direct;
    c.cmp = cmp_direct;
    c.query = query_direct;
    c.get_eoa = get_eoa_direct;
    c.set_eoa = set_eoa_direct;
    c.get_eof = get_eof_direct;
    c.get_handle = get_handle_direct;
    c.read = read_direct;
    c.write = write_direct;
    c.flush = flush_direct;
    c.truncate = truncate_direct;
    c.lock = lock_direct;
    c.unlock = unlock_direct;
    const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
    std::copy(std::begin(map), std::end(map), c.fl_map);
    return c;
}

// Registered on first use and again should the library have been closed and reopened (its
// identifiers are then gone).
hid_t direct_driver() {
    static std::mutex m;
    static const H5FD_class_t cls = direct_class();
    static hid_t id = H5I_INVALID_HID;
    std::lock_guard<std::mutex> lock(m);
    if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&cls);
    return id;
}

}  // namespace

H5Handle table_file_access(bool direct) {
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.valid()) return fapl;
    const herr_t rc =
        direct ? H5Pset_driver(fapl.get(), direct_driver(), nullptr) : H5Pset_fapl_sec2(fapl.get());
    if (rc < 0) fapl.reset();
    return fapl;
}

bool uses_direct_writes(hid_t file) {
    H5Handle fapl(H5Fget_access_plist(file), H5Pclose);
    return fapl.valid() && H5Pget_driver(fapl.get()) == direct_driver();
}

DirectWriteCounts direct_write_counts(hid_t file) {
    void* handle = nullptr;
    if (!uses_direct_writes(file) || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
        return {};
    std::lock_guard<std::mutex> lock(open_files_mutex());
    const auto it = open_files().find(*static_cast<int*>(handle));
    return it == open_files().end() ? DirectWriteCounts{} : it->second->counts;
}

}  // namespace grundy::io
