// Trajectory files: the timeline's samples as CSV (header `time` then the coordinate names in
// q_start order, as the stored-configuration CSV) or JSON, and reading such a CSV back as a
// motion to look at (a rendered timeline, a controller log). docs/timeline.md has the formats.
// Configuration files (Q.csv of `ikwb fk` and `ikwb check`): one configuration a line.
#pragma once

#include <string>
#include <vector>

#include "app/cli/csv.hpp"
#include "engine/core/model.hpp"
#include "solver/timeline_render.hpp"

namespace ikwb {

// column names of a configuration in q_start order: the joint's name, NAME_k (k from 0) for the
// coordinates of joints with several
std::vector<std::string> coord_names(const Model& model);

// the columns `ikwb solve` writes before a row's coordinates in OUT.csv; read_configurations_csv
// leaves them out when they lead the header, so a solve's results read as configurations
inline constexpr const char* kSolveResultColumns[] = {"converged", "pos_err", "rot_err",
                                                      "iterations"};

// One row per sample: time, then q. Atomic (app/cli/csv.hpp's CsvWriter); throws CsvError.
void write_trajectory_csv(const std::string& path, const Model& model, const Trajectory& tr);

// The format a trajectory file takes from its name, the same in the workbench and `ikwb
// animate`: JSON for a name ending in .json (any case), CSV for any other (and "-").
void write_trajectory(const std::string& path, const Model& model, const std::string& robot,
                      double rate, const Trajectory& tr);
// {"format": "ikwb-trajectory", "version", "robot", "rate", "fixed_step", "columns",
//  "samples": [{"time", "q"}],
//  "segments": [{"key", "start", "end", "interpolation", "ik_failures", "first_failure",
//  "max_position_error", "max_rotation_error", "max_velocity_ratio", "fastest_joint"}]}
// Atomic; throws SceneError when the file cannot be written.
void write_trajectory_json(const std::string& path, const Model& model, const std::string& robot,
                           double rate, const Trajectory& tr);

// A motion read from a CSV file: times and configurations.
struct Motion {
  std::vector<double> times;  // (sample_count) increasing
  std::vector<double> q;      // (sample_count x coord_count)
};
// Reads configurations: coord_count numbers a line in q_start order, or in the order of a header
// that names every coordinate once (coord_names, in any order; a first column `time`, as
// `ikwb animate` writes, leading kSolveResultColumns, as `ikwb solve` writes, and columns of
// fixed or mimic joints are left out: a mimic column that contradicts its source's, beyond 1e-5,
// gets a warning on standard error). Rows are returned
// in q_start order, the header as the file has it; a robot without coordinates reads an empty
// file as its one configuration. Throws CsvError naming the file and the line: a header with names
// the robot lacks, names missing or repeated (at the header, before any row), and what
// read_numeric_csv refuses. With `unsolved`, a row of `ikwb solve`'s output whose coordinates
// are all NaN (a target line it skipped) is read and marked 1 there (one entry a row) instead of
// refused; other non-finite values still are.
NumericTable read_configurations_csv(const std::string& path, const Model& model,
                                     std::vector<uint8_t>* unsolved = nullptr);

// Reads a trajectory CSV for `model`: the header `time`, then every coordinate once (coord_names)
// in any order, read by name as read_configurations_csv reads them (columns of fixed and mimic
// joints left out); rows are returned in q_start order. Throws CsvError naming the file and the
// line or column: no header, a first column that is not `time`, names the robot lacks, repeated
// or missing, times that do not increase, non-numeric or non-finite values.
Motion read_trajectory_csv(const std::string& path, const Model& model);

}  // namespace ikwb
