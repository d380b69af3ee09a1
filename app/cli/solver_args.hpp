// Solver options shared by `ikwb solve`, `ikwb bench` and `ikwb gui`: one per entry of the
// settings table (solver/settings.hpp), declared on a parser and read back into SolverSettings.
#pragma once

#include "app/cli/cli_args.hpp"
#include "solver/settings.hpp"

namespace ikwb {

void add_solver_options(ArgParser& args);
// starts from `defaults` and applies what was given; throws CliError naming a bad value. Several
// seeds without a sampler named on the command line or before (sampler_named: by the scene) are
// drawn from a Roberts sequence (default_seed_sampler).
SolverSettings read_solver_options(const ArgParser& args, SolverSettings defaults,
                                   bool sampler_named = false);
// "--offset X,Y,Z" -> vector; throws CliError
Vec3<double> parse_vec3(const std::string& name, const std::string& text);

}  // namespace ikwb
