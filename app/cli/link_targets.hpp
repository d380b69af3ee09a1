// Targets for `ikwb solve ROBOT --link NAME --targets T.csv`: one a line, x,y,z (a position) or
// x,y,z,qx,qy,qz,qw (a pose, unit quaternion), world frame. Blank lines and lines starting with
// '#' are skipped; the first other line may be a header (no field is or starts like a number)
// naming x, y, z (and qx, qy, qz, qw) once each in any order, without case: the rows' values are
// read by those names, other columns (a frame number, a time) are not read, and every row must
// have the header's width. Without one the count of values most valid lines have decides (a bad
// first line does not decide for the file). Every later line is a target row, in order, so
// results line up with the file's target lines.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "engine/core/spatial.hpp"

namespace ikwb {

struct LinkTargetRow {
  int line = 0;     // 1-based line in the file
  bool ok = false;  // false: malformed, reported in `error`, not solved
  std::string error;
  Transform<double> pose = transform_identity<double>();  // rotation identity for positions
};

struct LinkTargets {
  std::vector<LinkTargetRow> rows;
  int columns = 0;  // 3 or 7: the header's count, else the one most valid rows have (a tie: the
                    // first valid row's), which all rows must have; 0 when there is neither
  std::vector<std::string> ignored_columns;  // header columns that are not target coordinates
  bool header = false;                       // the file names its columns
};

// Reads the rows. A row is malformed when a field is not a finite number (a hint says to use
// commas when a field holds ';' or blanks), it has neither 3 nor 7 values or not `columns`, or
// its quaternion is not unit within 1e-3 (quaternions are renormalised). The whole file is read
// before `columns` is decided, so every valid row has its say.
// CRLF line ends are fine. A header without x, y and z, with some of the quaternion's names but
// not all, or repeating one throws CsvError "SOURCE_NAME:LINE: the header ...".
LinkTargets parse_link_targets(std::istream& in, const std::string& source_name);
// same from a file ("-": standard input); throws CsvError naming the file when it is a folder or
// cannot be opened
LinkTargets read_link_targets(const std::string& path);

}  // namespace ikwb
