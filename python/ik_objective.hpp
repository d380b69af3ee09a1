// ikwb.ik's objectives as the Python classes hold them (python/ik_objectives.cpp) and as
// IKSolver maps them onto an IkProblem (python/ik_solver.cpp).
#pragma once

#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/objective_kinds.hpp"
#include "python/bindings.hpp"
#include "solver/problem.hpp"

namespace ikwb::python {

// One objective: its kind's parameters (the IkProblem's Objective) and its targets; each Python
// class (IKObjectivePosition, ...) is a type derived from it.
struct PyObjective {
  virtual ~PyObjective() = default;
  std::string class_name;
  Objective spec;
  // one per base problem, world frame (kinds with a target); what the user set
  std::vector<Transform<double>> targets;
  // IKObjectiveRotation: the link frame turned by this is what meets the target
  Quat<double> rotation_offset = quat_identity<double>();
  // IKObjectiveJointLimit: limits replacing the model's (dof_count each), or empty
  std::vector<double> limit_lower, limit_upper;
  int dof_count = -1;  // known once a solver holds it (or from the limits)

  const ObjectiveKind& kind() const { return objective_kind(spec.params.type); }
  // the target the IkProblem gets for problem i
  Transform<double> problem_target(int i) const {
    Transform<double> t = targets[i];
    t.q = normalize(t.q * conjugate(rotation_offset));
    return t;
  }
  // a look-at that follows a link has no targets (its setters read "out of range [0, 0)")
  void check_has_targets(const std::string& what) const {
    if (spec.params.type == ObjectiveType::kLookAt && spec.params.link_b >= 0)
      throw py::value_error(class_name + "." + what + ": it follows target_link " +
                            std::to_string(spec.params.link_b) + ", and has no targets to set");
  }
  void check_problem(int i, const char* what) const {
    check_has_targets(what);
    if (i < 0 || i >= int(targets.size()))
      throw py::value_error(class_name + "." + what + ": problem_idx " + std::to_string(i) +
                            " out of range [0, " + std::to_string(targets.size()) + ")");
  }
};

struct CustomObjectivePy : PyObjective {
  py::object residual_fn;
  int custom_dim = 0;
};

// A step() in progress: the solver it runs, and the step whose Python residual called it, or
// null (the chain crosses threads: residuals run on the solver's worker threads).
struct StepScope {
  const void* solver;
  const StepScope* caller;
};

// The thread's innermost step whose Python residual is running, or null.
const StepScope* current_step();

// What a solver's Python residuals share with its step(): the step running (its residuals make
// it the thread's current_step while they call Python), and the first exception a residual
// raised (the solver's threads cannot raise it): the rows it should have written are zeros, and
// step() raises it afterwards.
struct ResidualContext {
  std::mutex mutex;
  std::exception_ptr error;
  const StepScope* step = nullptr;
};

// A CustomObjective whose residual calls `fn(q, body_q)` under the GIL (FD Jacobian) for
// objective `index` of a solver; the first exception, or a ValueError for a result of the wrong
// size or with NaN or inf, goes to `context`.
std::shared_ptr<CustomObjective> python_residual(py::object fn, int dim, int index,
                                                 std::shared_ptr<ResidualContext> context);

// the objective classes (IKObjective and its kinds)
void bind_ik_objectives(py::module_& ik);

}  // namespace ikwb::python
