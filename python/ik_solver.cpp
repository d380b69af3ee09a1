// ikwb.ik.IKSolver: batched IK in newton.ik's shape. The objectives map onto an IkProblem
// (solver/problem.hpp); step() solves [n_problems, joint_coord_count] arrays with the CPU
// backend, the GIL released, and keeps per-problem results.
#include <mutex>

#include "python/ik_objective.hpp"
#include "solver/settings.hpp"

namespace ikwb::python {

namespace {

struct PySolver {
  std::shared_ptr<PyModel> model;
  std::shared_ptr<const Model> solve_model;  // model, or a copy with a limit objective's limits
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
  std::shared_ptr<CallbackError> callback_error = std::make_shared<CallbackError>();

  // targets, weights and enabled flags edited since the last step reach the problem in place
  void sync() {
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

std::unique_ptr<PySolver> make_solver_py(std::shared_ptr<PyModel> pm, int n_problems,
                                         std::vector<std::shared_ptr<PyObjective>> objectives,
                                         py::object optimizer, py::object jacobian_mode,
                                         py::object sampler, int n_seeds, py::object lambda_initial,
                                         py::object rng_seed, py::kwargs kwargs) {
  if (n_problems < 1) throw py::value_error("IKSolver: n_problems must be >= 1");
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
  apply_settings(d, s->settings, "IKSolver");
  apply_settings(kwargs, s->settings, "IKSolver");
  const Model& m = *pm->model;
  s->solve_model = pm->model;
  for (const auto& o : objectives) {
    if (o->limit_lower.empty()) continue;
    if (int(o->limit_lower.size()) != m.dof_count || int(o->limit_upper.size()) != m.dof_count)
      throw py::value_error("IKSolver: IKObjectiveJointLimit limits have " +
                            std::to_string(o->limit_lower.size()) + " values, joint_dof_count is " +
                            std::to_string(m.dof_count));
    auto copy = std::make_shared<Model>(m);
    copy->dof_lower = o->limit_lower;
    copy->dof_upper = o->limit_upper;
    s->solve_model = copy;
  }
  s->problem = std::make_unique<IkProblem>(s->solve_model, n_problems);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    PyObjective& o = *objectives[i];
    if (o.spec.has_target() && int(o.targets.size()) != n_problems)
      throw py::value_error("IKSolver: objective " + std::to_string(i) + " (" + o.class_name +
                            ") has " + std::to_string(o.targets.size()) +
                            " targets, n_problems is " + std::to_string(n_problems));
    Objective spec = o.spec;
    if (auto* c = dynamic_cast<CustomObjectivePy*>(&o))
      spec.custom = python_residual(c->residual_fn, c->custom_dim, s->callback_error);
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
  const Model& m = *s.solve_model;
  auto qin = as_doubles(joint_q_in, "IKSolver.step joint_q_in", {s.n_problems, m.coord_count});
  auto qout = as_output(joint_q_out, "IKSolver.step joint_q_out", {s.n_problems, m.coord_count});
  std::unique_lock<std::mutex> lock(s.busy, std::defer_lock);
  {
    py::gil_scoped_release release;  // another thread's step may hold it while it solves
    lock.lock();
  }
  if (!iterations.is_none()) {
    py::dict d;
    d["iterations"] = iterations;
    apply_settings(d, s.settings, "IKSolver.step");
  }
  s.sync();
  std::vector<double> q0(qin.data(), qin.data() + qin.size());
  {
    py::gil_scoped_release release;
    s.solver->solve(*s.problem, s.settings, q0, s.work);
  }
  if (s.callback_error->error) {
    std::exception_ptr e = s.callback_error->error;
    s.callback_error->error = nullptr;
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
           py::arg("n_seeds") = 1, py::arg("lambda_initial") = py::none(),
           py::arg("rng_seed") = py::none(),
           "Further keyword arguments are solver settings by their scene keys (README "
           "'Solver options'), e.g. tol_position=1e-5, threads=1, max_restarts... see "
           "ikwb.solver_setting_keys(). ValueError for unknown keys, bad values, objectives "
           "whose target count is not n_problems, or links out of range.")
      .def("step", &step_py, py::arg("joint_q_in"), py::arg("joint_q_out"),
           py::arg("iterations") = py::none(),
           "Solves every problem from joint_q_in [n_problems, joint_coord_count] into "
           "joint_q_out (float64, C-contiguous, written in place; may be joint_q_in). "
           "iterations: at most this many per seed (early exit at the tolerances unless "
           "fixed_iterations). The GIL is released while solving.")
      .def_property_readonly(
          "converged",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.converged; });
          })
      .def_property_readonly(
          "position_errors",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.position_error; });
          })
      .def_property_readonly(
          "rotation_errors",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.rotation_error; });
          })
      .def_property_readonly(
          "constraint_violations",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.constraint_violation; });
          })
      .def_property_readonly("costs",
                             [](const PySolver& s) {
                               return s.per_problem([](const ProblemResult& r) { return r.cost; });
                             })
      .def_property_readonly(
          "iterations",
          [](const PySolver& s) {
            return s.per_problem([](const ProblemResult& r) { return r.iterations; });
          })
      .def_property_readonly("seeds",
                             [](const PySolver& s) {
                               return s.per_problem([](const ProblemResult& r) { return r.seed; });
                             })
      .def_property_readonly("solve_seconds",
                             [](const PySolver& s) { return s.result.solve_seconds; })
      .def_property_readonly("n_problems", [](const PySolver& s) { return s.n_problems; })
      .def_property_readonly("n_seeds", [](const PySolver& s) { return s.settings.n_seeds; })
      .def_property_readonly("total_residual_count",
                             [](const PySolver& s) { return s.problem->residual_count(); })
      .def_property_readonly("settings",
                             [](const PySolver& s) { return settings_dict(s.settings); })
      .def_property_readonly("backend_note", [](const PySolver& s) { return s.backend_note; });

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
