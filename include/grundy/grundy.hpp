// The grundy library, all of it: #include <grundy/grundy.hpp>. Each header below may also be
// included alone (docs/library.md says what each holds).
#pragma once

#include "grundy/version.hpp"  // kSoftwareName, kVersion

#include "grundy/error.hpp"   // grundy::Error, ArgumentError, MemoryError
#include "grundy/memory.hpp"  // the memory budget a run must fit in

// Filling tables, into memory or an HDF5 file, and reading them back.
#include "grundy/engine.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/hdf5_writer.hpp"
#include "grundy/memory_table.hpp"
#include "grundy/tile_sink.hpp"

// Studying tables: the passes over any TableSource, a file's or an array's.
#include "grundy/analysis.hpp"
#include "grundy/array_analysis.hpp"
#include "grundy/periodicity.hpp"
#include "grundy/row_period.hpp"
#include "grundy/table_source.hpp"

// Certified row periods of a strip of rows.
#include "grundy/periods.hpp"

// Perfect play, sums of games, subtraction games and finite games of your own.
#include "grundy/game.hpp"
#include "grundy/play.hpp"
