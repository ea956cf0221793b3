// PyramidReader (io/pyramid_reader.hpp): the checks of TABLE.pyramid on opening, and its blocks
// read with pread from where HDF5 says its datasets lie. The file's layout: pyramid_file.cpp.
#include "io/pyramid_reader.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

static_assert(sizeof(BlockStats) == 16, "four 4-byte fields, in the order of kPyramidFields");

// Closes a descriptor unless it is released to its owner.
struct FdGuard {
    int fd;
    ~FdGuard() {
        if (fd >= 0) ::close(fd);
    }
    int release() { return std::exchange(fd, -1); }
};

// Where the dataset `f` of a level of height x width blocks lies in a file of file_size bytes,
// when it is stored as save_pyramid stores it: of that shape, little-endian 4-byte values,
// contiguous in the file itself and wholly inside it. 0 (where a superblock lies) otherwise.
uint64_t field_offset(hid_t group, int f, uint64_t height, uint64_t width, uint64_t file_size) {
    H5Handle ds(H5Dopen2(group, kPyramidFields[f], H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) return 0;
    H5Handle space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space.get()) != 2) return 0;
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (dims[0] != height || dims[1] != width) return 0;
    H5Handle type(H5Dget_type(ds.get()), H5Tclose);
    if (H5Tequal(type.get(), f == 0 ? H5T_STD_U32LE : H5T_IEEE_F32LE) <= 0) return 0;
    H5Handle dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
    if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_external_count(dcpl.get()) != 0)
        return 0;
    const haddr_t at = H5Dget_offset(ds.get());
    if (width > file_size / 4 / height) return 0;  // larger than the file, and no overflow
    const uint64_t bytes = height * width * 4;
    if (at == HADDR_UNDEF || at == 0 || at > file_size || bytes > file_size - at) return 0;
    return at;
}

}  // namespace

std::unique_ptr<PyramidReader> PyramidReader::open(const std::string& path, uint64_t rows,
                                                   uint64_t cols, int top) {
    std::error_code ec;
    if (rows == 0 || cols == 0 || !std::filesystem::is_regular_file(path, ec)) return nullptr;
    FdGuard fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    struct stat opened {};
    if (fd.fd < 0 || ::fstat(fd.fd, &opened) != 0) return nullptr;
    const uint64_t size = static_cast<uint64_t>(opened.st_size);
    std::vector<Level> levels;
    {
        H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        if (!file.valid()) return nullptr;
        if (read_string_attribute(file.get(), "format") != std::string(kPyramidFormat) ||
            read_int_attribute(file.get(), "version") != 1 ||
            read_int_attribute(file.get(), "base_level") != kPyramidBase ||
            read_int_attribute(file.get(), "rows") != static_cast<int64_t>(rows) ||
            read_int_attribute(file.get(), "cols") != static_cast<int64_t>(cols))
            return nullptr;
        for (int l = kPyramidBase; l <= std::max(top, kPyramidBase); ++l) {
            const std::string name = "level_" + std::to_string(l);
            H5Handle g(H5Gopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
            if (!g.valid()) return nullptr;
            Level level{};
            for (int f = 0; f < 4; ++f) {
                level.offset[f] = field_offset(g.get(), f, pyramid_blocks(rows, l),
                                               pyramid_blocks(cols, l), size);
                if (level.offset[f] == 0) return nullptr;
            }
            levels.push_back(level);
        }
    }
    // What HDF5 read must be the file the descriptor reads, not one renamed over it since.
    struct stat now {};
    if (::stat(path.c_str(), &now) != 0 || now.st_dev != opened.st_dev ||
        now.st_ino != opened.st_ino)
        return nullptr;
    return std::unique_ptr<PyramidReader>(
        new PyramidReader(path, fd.release(), rows, cols, std::move(levels)));
}

PyramidReader::PyramidReader(std::string path, int fd, uint64_t rows, uint64_t cols,
                             std::vector<Level> levels)
    : path_(std::move(path)), fd_(fd), rows_(rows), cols_(cols), levels_(std::move(levels)) {}

PyramidReader::~PyramidReader() {
    ::close(fd_);
}

void PyramidReader::read_bytes(void* to, uint64_t bytes, uint64_t offset) const {
    char* p = static_cast<char*>(to);
    while (bytes > 0) {
        const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error("cannot read " + path_ + ": " + std::strerror(errno));
        if (n == 0) throw Error("cannot read " + path_ + ": cut short since it was opened");
        bytes_read_.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
        p += n, bytes -= static_cast<uint64_t>(n), offset += static_cast<uint64_t>(n);
    }
}

void PyramidReader::read(int level, uint64_t bx0, uint64_t by0, uint64_t w, uint64_t h,
                         BlockStats* out) const {
    const uint64_t across = width(level);
    if (!has(level) || bx0 > across || w > across - bx0 || by0 > height(level) ||
        h > height(level) - by0)
        throw Error("blocks outside the pyramid's level " + std::to_string(level));
    const Level& l = levels_[static_cast<size_t>(level - kPyramidBase)];
    // Parts of rows lie apart in the file (a tile's: 4 x 256 pieces of 1 KiB): asked for all at
    // once, the disk reads them together when they are not in the page cache yet.
    if (w != across)
        for (int f = 0; f < 4; ++f)
            for (uint64_t j = 0; j < h; ++j)
                ::posix_fadvise(fd_,
                                static_cast<off_t>(l.offset[f] + ((by0 + j) * across + bx0) * 4),
                                static_cast<off_t>(w * 4), POSIX_FADV_WILLNEED);
    std::vector<uint32_t> values(w * h);
    for (int f = 0; f < 4; ++f) {
        // Whole rows lie in one piece of the file; parts of rows, one piece per row.
        if (w == across) {
            read_bytes(values.data(), w * h * 4, l.offset[f] + by0 * across * 4);
        } else {
            for (uint64_t j = 0; j < h; ++j)
                read_bytes(&values[j * w], w * 4, l.offset[f] + ((by0 + j) * across + bx0) * 4);
        }
        for (uint64_t i = 0; i < w * h; ++i) {
            uint32_t v = values[i];
            if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
            std::memcpy(reinterpret_cast<char*>(&out[i]) + 4 * f, &v, 4);
        }
    }
}

Pyramid PyramidReader::read_all() const {
    Pyramid p;
    p.rows = rows_;
    p.cols = cols_;
    for (int l = kPyramidBase; l <= top(); ++l) {
        PyramidLevel level = PyramidLevel::of(l, rows_, cols_);
        level.blocks.resize(level.width * level.height);
        // Bands of about 4 MiB of values: the buffer read stays small beside the level.
        const uint64_t band = std::max<uint64_t>(1, (uint64_t{1} << 20) / level.width);
        for (uint64_t by = 0; by < level.height; by += band)
            read(l, 0, by, level.width, std::min(band, level.height - by),
                 &level.blocks[by * level.width]);
        p.levels.push_back(std::move(level));
    }
    return p;
}

std::optional<Pyramid> read_pyramid(const std::string& path, uint64_t rows, uint64_t cols,
                                    int top) {
    const std::unique_ptr<PyramidReader> reader = PyramidReader::open(path, rows, cols, top);
    if (!reader) return std::nullopt;
    try {
        return reader->read_all();
    } catch (const Error&) {
        return std::nullopt;  // cut short since it was opened
    }
}

}  // namespace grundy::io
