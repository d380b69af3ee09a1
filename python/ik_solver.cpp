// ikwb.ik.IKSolver: batched IK in newton.ik's shape. The objectives map onto an IkProblem
// (solver/problem.hpp); step() solves [n_problems, joint_coord_count] arrays with the CPU
// backend, the GIL released, and keeps per-problem results.
#include <cmath>
#include <limits>
#include <mutex>

#include "python/ik_objective.hpp"
#include "solver/settings.hpp"

namespace ikwb::python {

namespace {

struct PySolver {
  std::shared_ptr<PyModel> model;
  int n_problems = 0;
  std::vector<std::shared_ptr<PyObjective>> objectives;
  std::unique_ptr<IkProblem> problem;
  SolverSettings settings;
  std::unique_ptr<IkSolver> solver;
  std::string backend_note;
  SolveResult result;  // of the last step; read and swapped only under the GIL
  SolveResult work;    // the running step's (under `busy`, without the GIL)
  std::mutex busy;     // one step at a time: a second thread's step waits
  bool solved = false;
  std::shared_ptr<ResidualContext> residuals = std::make_shared<ResidualContext>();

  // The limits the solve keeps (the limit rows, the projection, the seeds): the tightest of the
  // enabled IKObjectiveJointLimit objectives' (each its own arrays or the model's), else the
  // model's. An empty range, or a finite limit of a continuous joint (it has none), is a
  // ValueError naming the joint.
  void sync_limits() {
    const Model& m = *model->model;
    std::vector<double> lo = m.dof_lower, hi = m.dof_upper;
    bool first = true;
    for (const auto& o : objectives) {
      if (o->spec.params.type != ObjectiveType::kJointLimits || !o->spec.params.enabled) continue;
      const std::vector<double>& ol = o->limit_lower.empty() ? m.dof_lower : o->limit_lower;
      const std::vector<double>& ou = o->limit_upper.empty() ? m.dof_upper : o->limit_upper;
      for (int d = 0; d < m.dof_count; ++d) {
        lo[d] = first ? ol[d] : std::max(lo[d], ol[d]);
        hi[d] = first ? ou[d] : std::min(hi[d], ou[d]);
      }
      first = false;
    }
    for (int d = 0; d < m.dof_count; ++d) {
      // the mimic joints following a 1-dof joint keep their own limits
      const int j = m.dof_joint[d];
      if (joint_type_dof_count(JointType(m.joint_type[j])) == 1 && lo[d] <= hi[d] &&
          !keep_mimic_limits(m, j, &lo[d], &hi[d]))
        throw py::value_error("IKSolver: the enabled IKObjectiveJointLimit objectives' limits [" +
                              number_text(lo[d]) + ", " + number_text(hi[d]) + "] of joint '" +
                              m.joint_name[j] + "' (dof " + std::to_string(d) +
                              ") have no value that keeps " + mimics_within_limits_text(m, j));
      if (lo[d] > hi[d])
        throw py::value_error(
            "IKSolver: the enabled IKObjectiveJointLimit objectives leave joint '" +
            m.joint_name[m.dof_joint[d]] + "' (dof " + std::to_string(d) + ") no range: lower " +
            number_text(lo[d]) + " > upper " + number_text(hi[d]));
      if (JointType(m.joint_type[m.dof_joint[d]]) == JointType::kContinuous &&
          (std::isfinite(lo[d]) || std::isfinite(hi[d])))
        throw py::value_error("IKSolver: an IKObjectiveJointLimit limits continuous joint '" +
                              m.joint_name[m.dof_joint[d]] + "' (dof " + std::to_string(d) +
                              "), which has no limits (give -inf and inf)");
    }
    problem->set_dof_limits(lo, hi);
  }

  // targets, weights, enabled flags and limits edited since the last step reach the problem in
  // place
  void sync() {
    sync_limits();
    for (int i = 0; i < int(objectives.size()); ++i) {
      const PyObjective& o = *objectives[i];
      const ObjectiveParams<double>& p = problem->objective(i).params;
      if (p.weight != o.spec.params.weight) problem->set_weight(i, o.spec.params.weight);
      if (p.enabled != o.spec.params.enabled) problem->set_enabled(i, o.spec.params.enabled);
      if (!o.spec.has_target()) continue;
      if (int(o.targets.size()) != n_problems)
        throw py::value_error("IKSolver.step: objective " + std::to_string(i) + " (" +
                              o.class_name + ") now has " + std::to_string(o.targets.size()) +
                              " targets, n_problems is " + std::to_string(n_problems));
      std::vector<Transform<double>> t(n_problems);
      for (int k = 0; k < n_problems; ++k) t[k] = o.problem_target(k);
      problem->set_target_poses(i, t);
    }
  }

  template <class F>
  py::array per_problem(F f) const {
    if (!solved) throw std::runtime_error("IKSolver: no results before the first step()");
    py::array_t<decltype(f(result.problems[0]))> a(py::ssize_t(result.problems.size()));
    for (std::size_t i = 0; i < result.problems.size(); ++i)
      a.mutable_data()[i] = f(result.problems[i]);
    return a;
  }
};

std::unique_ptr<PySolver> make_solver_py(std::shared_ptr<PyModel> pm, py::object problems,
                                         std::vector<std::shared_ptr<PyObjective>> objectives,
                                         py::object optimizer, py::object jacobian_mode,
                                         py::object sampler, py::object n_seeds,
                                         py::object lambda_initial, py::object rng_seed,
                                         py::kwargs kwargs) {
  if (!pm) throw py::type_error("IKSolver: model is None");
  // taken as an object and checked here: an int past C's range was pybind's "incompatible
  // function arguments" TypeError, which names no argument
  // any integer (numpy's too: n = np.int64(...) from a shape), not a bool or a float
  const bool integer = (py::isinstance<py::int_>(problems) || PyIndex_Check(problems.ptr())) &&
                       !py::isinstance<py::bool_>(problems) &&
                       !py::isinstance(problems, py::module_::import("numpy").attr("bool_"));
  if (!integer)
    throw py::type_error("IKSolver: n_problems must be an int, got " +
                         std::string(py::str(py::type::of(problems).attr("__name__"))));
  long long wide = 0;
  try {
    wide = py::int_(problems).cast<long long>();
  } catch (const py::cast_error&) {
    wide = -1;
  }
  if (wide < 1 || wide > std::numeric_limits<int>::max())
    throw py::value_error("IKSolver: n_problems must be from 1 to " +
                          std::to_string(std::numeric_limits<int>::max()) + ", got " +
                          std::string(py::str(problems)));
  const int n_problems = int(wide);
  for (std::size_t i = 0; i < objectives.size(); ++i)
    if (!objectives[i])
      throw py::type_error("IKSolver: objective " + std::to_string(i) + " is None");
  auto s = std::make_unique<PySolver>();
  s->model = pm;
  s->n_problems = n_problems;
  s->objectives = objectives;
  py::dict d;
  d["optimizer"] = optimizer;
  d["jacobian"] = jacobian_mode;
  d["sampler"] = sampler;
  d["n_seeds"] = n_seeds;
  if (!lambda_initial.is_none()) d["damping"] = lambda_initial;
  if (!rng_seed.is_none()) d["rng_seed"] = rng_seed;
  // the constructor's arguments named as the caller wrote them
  apply_settings(d, s->settings, "IKSolver",
                 {{"jacobian", "jacobian_mode"}, {"damping", "lambda_initial"}});
  apply_settings(kwargs, s->settings, "IKSolver");
  const Model& m = *pm->model;
  for (const auto& o : objectives)
    if (!o->limit_lower.empty() && int(o->limit_lower.size()) != m.dof_count)
      throw py::value_error("IKSolver: IKObjectiveJointLimit limits have " +
                            std::to_string(o->limit_lower.size()) + " values, joint_dof_count is " +
                            std::to_string(m.dof_count));
  s->problem = std::make_unique<IkProblem>(pm->model, n_problems);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    PyObjective& o = *objectives[i];
    if (o.spec.has_target() && int(o.targets.size()) != n_problems)
      throw py::value_error("IKSolver: objective " + std::to_string(i) + " (" + o.class_name +
                            ") has " + std::to_string(o.targets.size()) +
                            " targets, n_problems is " + std::to_string(n_problems));
    Objective spec = o.spec;
    if (auto* c = dynamic_cast<CustomObjectivePy*>(&o))
      spec.custom = python_residual(c->residual_fn, c->custom_dim, int(i), s->residuals);
    try {
      s->problem->add_objective(spec);
    } catch (const std::invalid_argument& e) {
      throw py::value_error("IKSolver: objective " + std::to_string(i) + " (" + o.class_name +
                            "): " + e.what());
    }
    o.dof_count = m.dof_count;
  }
  s->sync();
  s->solver = make_solver(s->settings.backend, &s->backend_note);
  return s;
}

void step_py(PySolver& s, py::handle joint_q_in, py::handle joint_q_out, py::object iterations) {
  const Model& m = *s.model->model;
  // a residual of this step (or of a step it started) calling step() would wait for itself
  const StepScope scope{&s, current_step()};
  for (const StepScope* c = scope.caller; c; c = c->caller)
    if (c->solver == &s)
      throw std::runtime_error(
          "IKSolver.step: step() called from within a step of the same solver (its residual)");
  auto qin = as_doubles(joint_q_in, "IKSolver.step joint_q_in", {s.n_problems, m.coord_count});
  check_joint_values(m, qin.data(), s.n_problems, true, true, "IKSolver.step joint_q_in");
  auto qout = as_output(joint_q_out, "IKSolver.step joint_q_out", {s.n_problems, m.coord_count});
  SolverSettings settings = s.settings;  // iterations= is this call's only
  if (!iterations.is_none()) {
    py::dict d;
    d["iterations"] = iterations;
    apply_settings(d, settings, "IKSolver.step");
  }
  std::unique_lock<std::mutex> lock(s.busy, std::defer_lock);
  if (scope.caller) {
    // from another solver's residual: waiting for a step in another thread could wait forever
    // (that step's residual may be waiting for the solver this thread holds)
    if (!lock.try_lock())
      throw std::runtime_error(
          "IKSolver.step: step() called from a residual while the solver is stepping in another "
          "thread (waiting could deadlock)");
  } else {
    py::gil_scoped_release release;  // another thread's step may hold it while it solves
    lock.lock();
  }
  s.sync();
  std::vector<double> q0(qin.data(), qin.data() + qin.size());
  {
    // the residuals know their step while it solves
    struct Running {
      ResidualContext& context;
      ~Running() { context.step = nullptr; }
    } running{*s.residuals};
    s.residuals->step = &scope;
    s.residuals->error = nullptr;  // left by a step whose solve threw
    py::gil_scoped_release release;
    s.solver->solve(*s.problem, settings, q0, s.work);
  }
  if (s.residuals->error) {
    std::exception_ptr e = s.residuals->error;
    s.residuals->error = nullptr;
    std::rethrow_exception(e);
  }
  std::swap(s.result, s.work);
  s.solved = true;
  double* out = qout.mutable_data();
  for (int i = 0; i < s.n_problems; ++i)
    std::copy(s.result.problems[i].q.begin(), s.result.problems[i].q.end(),
              out + std::size_t(i) * m.coord_count);
}

}  // namespace

void bind_ik(py::module_& ik) {
  py::enum_<JacobianMode>(ik, "IKJacobianType")
      .value("ANALYTIC", JacobianMode::kAnalytic)
      .value("AUTODIFF", JacobianMode::kAutodiff)
      .value("FINITE_DIFFERENCE", JacobianMode::kFiniteDifference)
      .value("MIXED", JacobianMode::kMixed);
  py::enum_<Sampler>(ik, "IKSampler")
      .value("NONE", Sampler::kNone)
      .value("GAUSS", Sampler::kGaussian)
      .value("UNIFORM", Sampler::kUniform)
      .value("ROBERTS", Sampler::kRoberts);
  py::enum_<Optimizer>(ik, "IKOptimizer")
      .value("LM", Optimizer::kLevenbergMarquardt)
      .value("LBFGS", Optimizer::kLbfgs);

  bind_ik_objectives(ik);

  py::class_<PySolver>(ik, "IKSolver",
                       "Batched IK over n_problems base problems (x n_seeds seeds) sharing a "
                       "model and objectives; CPU backend, double precision by default.")
      .def(py::init(&make_solver_py), py::arg("model"), py::arg("n_problems"),
           py::arg("objectives"), py::arg("optimizer") = Optimizer::kLevenbergMarquardt,
           py::arg("jacobian_mode") = JacobianMode::kAnalytic, py::arg("sampler") = Sampler::kNone,
           py::arg("n_seeds") = py::int_(1), py::arg("lambda_initial") = py::none(),
           py::arg("rng_seed") = py::none(),
           "model: an ikwb.Model; objectives: a list of ik.IKObjective* (TypeError for None). "
           "Enums or their names are accepted (optimizer='lbfgs', sampler='roberts'). Further "
           "keyword arguments are solver settings by their scene keys (README 'Solver options'), "
           "e.g. tol_position=1e-5, threads=1, restarts=20; ikwb.ik.solver_setting_keys() lists "
           "them. ValueError for unknown keys, bad values, objectives whose target count is not "
           "n_problems, links out of range, or enabled IKObjectiveJointLimit objectives whose "
           "limits leave a joint no range.")
      .def("__repr__",
           [](const PySolver& s) {
             return "<ikwb.ik.IKSolver '" + s.model->model->name +
                    "': " + std::to_string(s.n_problems) + " problems x " +
                    std::to_string(s.settings.n_seeds) + " seeds, " +
                    std::to_string(s.objectives.size()) + " objectives, " +
                    to_string(s.settings.backend) + ">";
           })
      .def("step", &step_py, py::arg("joint_q_in"), py::arg("joint_q_out"),
           py::arg("iterations") = py::none(),
           "Solves every problem from joint_q_in (n_problems, joint_coord_count) into "
           "joint_q_out (float64, C-contiguous, written in place; may be joint_q_in). "
           "iterations: at most this many per seed for this call only (early exit at the "
           "tolerances unless fixed_iterations); None: the 'iterations' setting. Objectives' "
           "targets, weights and enabled flags edited since the last step apply. The GIL is "
           "released while solving. An exception a custom residual raised (or a ValueError for "
           "its wrong size or NaN / inf values) is raised here; RuntimeError when called from a "
           "residual of the same solver's step.")
      .def_property_readonly(
          "converged",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.converged; });
          },
          "(n_problems,) bool, of the last step: the kept seed meets tol_position / "
          "tol_rotation on the task objectives' errors (position_errors, rotation_errors) and "
          "tol_constraint on the hard objectives' violations. Soft rows of the other kinds "
          "(posture, joint limits, distances, custom residuals, ...) are costs and do not count; "
          "without any task or hard objective it is True. RuntimeError before the first step().")
      .def_property_readonly(
          "position_errors",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.position_error; });
          },
          "(n_problems,) float64, m: the largest position error over the enabled task "
          "objectives (position, pose, relative ball / fixed, centre of mass)")
      .def_property_readonly(
          "rotation_errors",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.rotation_error; });
          },
          "(n_problems,) float64, rad: the largest rotation error over the enabled task "
          "objectives (rotation, pose, relative fixed, look-at, axis alignment)")
      .def_property_readonly(
          "constraint_violations",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.constraint_violation; });
          },
          "(n_problems,) float64: the largest violation over the hard objectives (the norm of "
          "an equality's rows, the largest positive row of an inequality; their units)")
      .def_property_readonly(
          "costs",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.cost; });
          },
          "(n_problems,) float64: the soft cost at the kept solution, half the sum of the "
          "squared weighted rows of the soft objectives")
      .def_property_readonly(
          "iterations",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.iterations; });
          },
          "(n_problems,) int: the iterations the kept seed ran (its restarts included)")
      .def_property_readonly(
          "seeds",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.seed; });
          },
          "(n_problems,) int: the seed kept (0 .. n_seeds - 1)")
      .def_property_readonly(
          "solve_seconds", [](const PySolver& s) { return s.result.solve_seconds; },
          "Wall time of the last step's solve, s")
      .def_property_readonly(
          "n_problems", [](const PySolver& s) { return s.n_problems; }, "Base problems per step")
      .def_property_readonly(
          "n_seeds", [](const PySolver& s) { return s.settings.n_seeds; },
          "Seeds (starts) per base problem")
      .def_property_readonly(
          "total_residual_count", [](const PySolver& s) { return s.problem->residual_count(); },
          "Rows of one problem: the sum of the objectives' residual_dim()")
      .def_property_readonly(
          "settings", [](const PySolver& s) { return settings_dict(s.settings); },
          "Every solver setting by scene key (a new dict; step's iterations= does not change it)")
      .def_property_readonly(
          "backend_note", [](const PySolver& s) { return s.backend_note; },
          "Why another backend than the one asked for runs (backend='cuda': the CPU), or ''");

  ik.def(
      "solver_setting_keys",
      [] {
        std::vector<std::string> keys;
        for (const SettingInfo& i : solver_settings_table()) keys.push_back(i.key);
        return keys;
      },
      "The solver settings' scene keys (keyword arguments of IKSolver)");
}

}  // namespace ikwb::python
