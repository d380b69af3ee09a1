// ikwb.ik: batched IK in newton.ik's shape. Objectives hold their kind's parameters and one
// target per base problem; IKSolver maps them onto an IkProblem (solver/problem.hpp) and solves
// [n_problems, joint_coord_count] arrays with the CPU backend, the GIL released.
#include <cmath>
#include <mutex>

#include "engine/core/objective_kinds.hpp"
#include "python/bindings.hpp"
#include "solver/problem.hpp"
#include "solver/settings.hpp"

namespace ikwb::python {

namespace {

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
  void check_problem(int i, const char* what) const {
    if (i < 0 || i >= int(targets.size()))
      throw py::value_error(class_name + "." + what + ": problem_idx " + std::to_string(i) +
                            " out of range [0, " + std::to_string(targets.size()) + ")");
  }
};

// C++ types for each Python class (pybind11 needs one per class)
struct PositionObjective : PyObjective {};
struct RotationObjective : PyObjective {};
struct PoseObjective : PyObjective {};
struct JointLimitObjective : PyObjective {};
struct PostureObjective : PyObjective {};
struct RelativeBallObjective : PyObjective {};
struct RelativeFixedObjective : PyObjective {};
struct MinDistanceObjective : PyObjective {};
struct ComObjective : PyObjective {};
struct LookAtObjective : PyObjective {};
struct AxisAlignObjective : PyObjective {};
struct CustomObjectivePy : PyObjective {
  py::object residual_fn;
  int custom_dim = 0;
};

// The first exception a Python residual raised during a solve (the solver's threads cannot
// raise it): the rows it should have written are zeros, and step() raises it afterwards.
struct CallbackError {
  std::mutex mutex;
  std::exception_ptr error;
};

// A CustomObjective whose residual calls `fn(q, body_q)` under the GIL (FD Jacobian).
std::shared_ptr<CustomObjective> python_residual(py::object fn, int dim,
                                                 std::shared_ptr<CallbackError> err) {
  // the callable is released under the GIL, wherever the last copy goes
  std::shared_ptr<py::object> f(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
  auto c = std::make_shared<CustomObjective>();
  c->dim = dim;
  c->residual = [f, dim, err](const Model& m, const double* q, const Transform<double>* x,
                              double* r) {
    std::fill(r, r + dim, 0.0);
    py::gil_scoped_acquire gil;
    {
      std::lock_guard<std::mutex> lock(err->mutex);
      if (err->error) return;
    }
    try {
      py::array qa(py::dtype::of<double>(), {py::ssize_t(m.coord_count)}, q);  // copies
      py::array xa(py::dtype::of<double>(), {py::ssize_t(m.body_count), py::ssize_t(7)},
                   reinterpret_cast<const double*>(x));
      auto out = as_doubles((*f)(qa, xa), "IKObjectiveCustom residual", {dim});
      std::copy(out.data(), out.data() + dim, r);
    } catch (...) {
      std::lock_guard<std::mutex> lock(err->mutex);
      if (!err->error) err->error = std::current_exception();
    }
  };
  return c;
}

Vec3<double> vec3_of(py::handle v, const std::string& what) {
  auto a = as_doubles(v, what, {3});
  const double* d = a.data();
  return {d[0], d[1], d[2]};
}

template <class T>
std::shared_ptr<T> make(const char* name, ObjectiveType type, double weight, bool hard) {
  auto o = std::make_shared<T>();
  o->class_name = name;
  o->spec.params.type = type;
  o->spec.params.weight = weight;
  o->spec.params.hard = hard ? 1 : 0;
  return o;
}

void set_positions(PyObjective& o, py::handle p, const std::string& what, bool resize) {
  auto a =
      as_doubles(p, o.class_name + "." + what, {resize ? -1 : py::ssize_t(o.targets.size()), 3});
  if (resize) o.targets.assign(a.shape(0), transform_identity<double>());
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    const double* d = a.data() + 3 * i;
    if (!std::isfinite(d[0]) || !std::isfinite(d[1]) || !std::isfinite(d[2]))
      throw py::value_error(o.class_name + "." + what + ": target " + std::to_string(i) +
                            " has NaN or inf values");
    o.targets[i].p = {d[0], d[1], d[2]};
  }
}

void set_rotations(PyObjective& o, py::handle q, const std::string& what, bool resize) {
  auto a =
      as_doubles(q, o.class_name + "." + what, {resize ? -1 : py::ssize_t(o.targets.size()), 4});
  if (resize) o.targets.assign(a.shape(0), transform_identity<double>());
  for (py::ssize_t i = 0; i < a.shape(0); ++i)
    o.targets[i].q =
        unit_quat(a.data() + 4 * i, o.class_name + "." + what + " row " + std::to_string(i));
}

void set_poses(PyObjective& o, py::handle x, const std::string& what, bool resize) {
  auto a =
      as_doubles(x, o.class_name + "." + what, {resize ? -1 : py::ssize_t(o.targets.size()), 7});
  if (resize) o.targets.assign(a.shape(0), transform_identity<double>());
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    const double* d = a.data() + 7 * i;
    if (!std::isfinite(d[0]) || !std::isfinite(d[1]) || !std::isfinite(d[2]))
      throw py::value_error(o.class_name + "." + what + ": target " + std::to_string(i) +
                            " has NaN or inf values");
    o.targets[i].p = {d[0], d[1], d[2]};
    o.targets[i].q = unit_quat(d + 3, o.class_name + "." + what + " row " + std::to_string(i));
  }
}

py::array positions_of(const PyObjective& o) {
  py::array_t<double> a({py::ssize_t(o.targets.size()), py::ssize_t(3)});
  for (std::size_t i = 0; i < o.targets.size(); ++i)
    for (int k = 0; k < 3; ++k) a.mutable_data()[3 * i + k] = o.targets[i].p[k];
  return a;
}

py::array rotations_of(const PyObjective& o) {
  py::array_t<double> a({py::ssize_t(o.targets.size()), py::ssize_t(4)});
  for (std::size_t i = 0; i < o.targets.size(); ++i) {
    const Quat<double>& q = o.targets[i].q;
    double* d = a.mutable_data() + 4 * i;
    d[0] = q.x, d[1] = q.y, d[2] = q.z, d[3] = q.w;
  }
  return a;
}

// the setters of a kind whose target has a position
template <class C>
void position_setters(C& c) {
  c.def(
       "set_target_position",
       [](PyObjective& o, int i, py::handle p) {
         o.check_problem(i, "set_target_position");
         Vec3<double> v = vec3_of(p, o.class_name + ".set_target_position new_position");
         if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
           throw py::value_error(o.class_name + ".set_target_position: NaN or inf values");
         o.targets[i].p = v;
       },
       py::arg("problem_idx"), py::arg("new_position"),
       "Target position [m], world frame, of one base problem")
      .def(
          "set_target_positions",
          [](PyObjective& o, py::handle p) { set_positions(o, p, "set_target_positions", false); },
          py::arg("new_positions"), "Target positions of every base problem, [problem_count, 3]")
      .def_property_readonly("target_positions", &positions_of, "A copy, [problem_count, 3]");
}

template <class C>
void rotation_setters(C& c) {
  c.def(
       "set_target_rotation",
       [](PyObjective& o, int i, py::handle q) {
         o.check_problem(i, "set_target_rotation");
         auto a = as_doubles(q, o.class_name + ".set_target_rotation new_rotation", {4});
         o.targets[i].q = unit_quat(a.data(), o.class_name + ".set_target_rotation");
       },
       py::arg("problem_idx"), py::arg("new_rotation"),
       "Target orientation (quaternion x, y, z, w; unit within 1e-3) of one base problem")
      .def(
          "set_target_rotations",
          [](PyObjective& o, py::handle q) { set_rotations(o, q, "set_target_rotations", false); },
          py::arg("new_rotations"), "Target orientations of every base problem, [problem_count, 4]")
      .def_property_readonly("target_rotations", &rotations_of, "A copy, [problem_count, 4]");
}

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
      if (!o.kind().has_target()) continue;
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
    if (o.kind().has_target() && int(o.targets.size()) != n_problems)
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

template <class T>
py::class_<T, PyObjective, std::shared_ptr<T>> objective_class(py::module_& ik, const char* name,
                                                               const char* doc) {
  return py::class_<T, PyObjective, std::shared_ptr<T>>(ik, name, doc);
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

  py::class_<PyObjective, std::shared_ptr<PyObjective>>(ik, "IKObjective", "Base of the objectives")
      .def("residual_dim",
           [](const PyObjective& o) {
             if (o.spec.custom) return o.spec.custom->dim;
             int dim = o.kind().dim(o.dof_count);
             if (dim < 0)
               throw py::value_error(o.class_name +
                                     ".residual_dim: one row per dof; known once an IKSolver "
                                     "holds the objective (or from its limit arrays)");
             return dim;
           })
      .def("supports_analytic",
           [](const PyObjective& o) { return o.spec.params.type != ObjectiveType::kCustom; })
      .def_property(
          "weight", [](const PyObjective& o) { return o.spec.params.weight; },
          [](PyObjective& o, double w) {
            if (!(w >= 0) || !std::isfinite(w))
              throw py::value_error(o.class_name + ".weight must be finite and >= 0");
            o.spec.params.weight = w;
          },
          "Scales residual and Jacobian rows; editable, applied at the next step()")
      .def_property(
          "enabled", [](const PyObjective& o) { return bool(o.spec.params.enabled); },
          [](PyObjective& o, bool e) { o.spec.params.enabled = e ? 1 : 0; },
          "A disabled objective writes zero rows; editable, applied at the next step()")
      .def_property_readonly("hard", [](const PyObjective& o) { return bool(o.spec.params.hard); })
      .def_property_readonly("kind", [](const PyObjective& o) { return o.kind().name; })
      .def_property_readonly("problem_count",
                             [](const PyObjective& o) { return int(o.targets.size()); })
      .def("__repr__", [](const PyObjective& o) {
        return "<ikwb.ik." + o.class_name + " weight " + std::to_string(o.spec.params.weight) +
               (o.spec.params.hard ? ", hard>" : ">");
      });

  auto pos = objective_class<PositionObjective>(
      ik, "IKObjectivePosition", "Match the world position of a point on a link (3 rows)");
  pos.def(py::init([](int link, py::handle offset, py::handle targets, double weight, bool hard,
                      py::handle position_weights) {
            auto o = make<PositionObjective>("IKObjectivePosition", ObjectiveType::kPosition,
                                             weight, hard);
            o->spec.params.link = link;
            o->spec.params.offset = vec3_of(offset, "IKObjectivePosition link_offset");
            o->spec.params.position_weights =
                vec3_of(position_weights, "IKObjectivePosition position_weights");
            set_positions(*o, targets, "target_positions", true);
            return o;
          }),
          py::arg("link_index"), py::arg("link_offset"), py::arg("target_positions"),
          py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false,
          py::arg("position_weights") = std::vector<double>{1, 1, 1});
  position_setters(pos);

  auto rot = objective_class<RotationObjective>(
      ik, "IKObjectiveRotation",
      "Match the world orientation of a link frame turned by link_offset_rotation (3 rows, "
      "log-map error with its exact Jacobian)");
  rot.def(py::init([](int link, py::handle offset_rotation, py::handle targets, double weight,
                      bool hard, py::handle rotation_weights) {
            auto o = make<RotationObjective>("IKObjectiveRotation", ObjectiveType::kRotation,
                                             weight, hard);
            o->spec.params.link = link;
            auto r = as_doubles(offset_rotation, "IKObjectiveRotation link_offset_rotation", {4});
            o->rotation_offset = unit_quat(r.data(), "IKObjectiveRotation link_offset_rotation");
            o->spec.params.rotation_weights =
                vec3_of(rotation_weights, "IKObjectiveRotation rotation_weights");
            set_rotations(*o, targets, "target_rotations", true);
            return o;
          }),
          py::arg("link_index"), py::arg("link_offset_rotation"), py::arg("target_rotations"),
          py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false,
          py::arg("rotation_weights") = std::vector<double>{1, 1, 1});
  rotation_setters(rot);

  auto pose = objective_class<PoseObjective>(
      ik, "IKObjectivePose", "Position and orientation of a point on a link (6 rows)");
  pose.def(py::init([](int link, py::handle offset, py::handle targets, double weight, bool hard,
                       py::handle pw, py::handle rw) {
             auto o = make<PoseObjective>("IKObjectivePose", ObjectiveType::kPose, weight, hard);
             o->spec.params.link = link;
             o->spec.params.offset = vec3_of(offset, "IKObjectivePose link_offset");
             o->spec.params.position_weights = vec3_of(pw, "IKObjectivePose position_weights");
             o->spec.params.rotation_weights = vec3_of(rw, "IKObjectivePose rotation_weights");
             set_poses(*o, targets, "target_poses", true);
             return o;
           }),
           py::arg("link_index"), py::arg("link_offset"), py::arg("target_poses"),
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false,
           py::arg("position_weights") = std::vector<double>{1, 1, 1},
           py::arg("rotation_weights") = std::vector<double>{1, 1, 1});
  position_setters(pose);
  rotation_setters(pose);
  pose.def(
          "set_target_pose",
          [](PyObjective& o, int i, py::handle x) {
            o.check_problem(i, "set_target_pose");
            auto a = as_doubles(x, o.class_name + ".set_target_pose new_pose", {7});
            const double* d = a.data();
            if (!std::isfinite(d[0]) || !std::isfinite(d[1]) || !std::isfinite(d[2]))
              throw py::value_error(o.class_name + ".set_target_pose: NaN or inf values");
            o.targets[i].p = {d[0], d[1], d[2]};
            o.targets[i].q = unit_quat(d + 3, o.class_name + ".set_target_pose");
          },
          py::arg("problem_idx"), py::arg("new_pose"), "x, y, z, qx, qy, qz, qw")
      .def(
          "set_target_poses",
          [](PyObjective& o, py::handle x) { set_poses(o, x, "set_target_poses", false); },
          py::arg("new_poses"), "[problem_count, 7]");

  objective_class<JointLimitObjective>(
      ik, "IKObjectiveJointLimit",
      "Soft (or hard) joint limits, one row per dof. Limits default to the model's; given "
      "arrays (joint_dof_count) replace them for the solver holding this objective, including "
      "the projection onto the limits (setting hard_joint_limits).")
      .def(py::init([](py::object lower, py::object upper, double weight, bool hard) {
             auto o = make<JointLimitObjective>("IKObjectiveJointLimit",
                                                ObjectiveType::kJointLimits, weight, hard);
             if (lower.is_none() != upper.is_none())
               throw py::value_error("IKObjectiveJointLimit: give both limit arrays or neither");
             if (!lower.is_none()) {
               auto lo = as_doubles(lower, "IKObjectiveJointLimit joint_limit_lower", {-1});
               auto hi = as_doubles(upper, "IKObjectiveJointLimit joint_limit_upper", {lo.size()});
               o->limit_lower.assign(lo.data(), lo.data() + lo.size());
               o->limit_upper.assign(hi.data(), hi.data() + hi.size());
               for (py::ssize_t i = 0; i < lo.size(); ++i)
                 if (std::isnan(lo.data()[i]) || std::isnan(hi.data()[i]) ||
                     lo.data()[i] > hi.data()[i])
                   throw py::value_error("IKObjectiveJointLimit: dof " + std::to_string(i) +
                                         " has lower > upper (or NaN)");
               o->dof_count = int(lo.size());
             }
             return o;
           }),
           py::arg("joint_limit_lower") = py::none(), py::arg("joint_limit_upper") = py::none(),
           py::arg("weight") = 0.1, py::kw_only(), py::arg("hard") = false);

  objective_class<PostureObjective>(
      ik, "IKObjectivePosture",
      "Pull toward a rest configuration (one row per dof), optionally as a step in the task's "
      "null space instead of rows (LM)")
      .def(py::init([](py::object rest_q, double weight, bool null_space) {
             auto o = make<PostureObjective>("IKObjectivePosture", ObjectiveType::kPosture, weight,
                                             false);
             o->spec.params.null_space = null_space ? 1 : 0;
             if (!rest_q.is_none()) {
               auto r = as_doubles(rest_q, "IKObjectivePosture rest_q", {-1});
               o->spec.rest_q.assign(r.data(), r.data() + r.size());
             }
             return o;
           }),
           py::arg("rest_q") = py::none(), py::arg("weight") = 0.1, py::kw_only(),
           py::arg("null_space") = false);

  objective_class<RelativeBallObjective>(
      ik, "IKObjectiveRelativeBall",
      "A point on link_a coincides with a point on link_b (3 rows; hard by default)")
      .def(py::init([](int a, py::handle oa, int b, py::handle ob, double weight, bool hard) {
             auto o = make<RelativeBallObjective>("IKObjectiveRelativeBall",
                                                  ObjectiveType::kRelativeBall, weight, hard);
             o->spec.params.link = a, o->spec.params.link_b = b;
             o->spec.params.offset = vec3_of(oa, "IKObjectiveRelativeBall offset_a");
             o->spec.params.offset_b = vec3_of(ob, "IKObjectiveRelativeBall offset_b");
             return o;
           }),
           py::arg("link_a"), py::arg("offset_a"), py::arg("link_b"), py::arg("offset_b"),
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);

  objective_class<RelativeFixedObjective>(
      ik, "IKObjectiveRelativeFixed",
      "link_b keeps the pose `relative` (x, y, z, qx, qy, qz, qw: link_b's frame in link_a's) "
      "(6 rows; hard by default)")
      .def(py::init([](int a, int b, py::handle relative, double weight, bool hard) {
             auto o = make<RelativeFixedObjective>("IKObjectiveRelativeFixed",
                                                   ObjectiveType::kRelativeFixed, weight, hard);
             o->spec.params.link = a, o->spec.params.link_b = b;
             auto r = as_doubles(relative, "IKObjectiveRelativeFixed relative", {7});
             o->spec.params.relative.p = {r.data()[0], r.data()[1], r.data()[2]};
             o->spec.params.relative.q =
                 unit_quat(r.data() + 3, "IKObjectiveRelativeFixed relative");
             return o;
           }),
           py::arg("link_a"), py::arg("link_b"),
           py::arg("relative") = std::vector<double>{0, 0, 0, 0, 0, 0, 1}, py::arg("weight") = 1.0,
           py::kw_only(), py::arg("hard") = true);

  objective_class<MinDistanceObjective>(
      ik, "IKObjectiveMinDistance",
      "Inequality: the points on link_a and link_b stay at least `distance` apart (1 row; hard "
      "by default)")
      .def(py::init([](int a, py::handle oa, int b, py::handle ob, double distance, double weight,
                       bool hard) {
             auto o = make<MinDistanceObjective>("IKObjectiveMinDistance",
                                                 ObjectiveType::kMinDistance, weight, hard);
             o->spec.params.link = a, o->spec.params.link_b = b;
             o->spec.params.offset = vec3_of(oa, "IKObjectiveMinDistance offset_a");
             o->spec.params.offset_b = vec3_of(ob, "IKObjectiveMinDistance offset_b");
             o->spec.params.distance = distance;
             return o;
           }),
           py::arg("link_a"), py::arg("offset_a"), py::arg("link_b"), py::arg("offset_b"),
           py::arg("distance"), py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);

  auto com = objective_class<ComObjective>(ik, "IKObjectiveCom",
                                           "The model's centre of mass at a target point (3 rows)");
  com.def(py::init([](py::handle targets, double weight, bool hard, py::handle pw) {
            auto o = make<ComObjective>("IKObjectiveCom", ObjectiveType::kCom, weight, hard);
            o->spec.params.position_weights = vec3_of(pw, "IKObjectiveCom position_weights");
            set_positions(*o, targets, "target_positions", true);
            return o;
          }),
          py::arg("target_positions"), py::arg("weight") = 1.0, py::kw_only(),
          py::arg("hard") = false, py::arg("position_weights") = std::vector<double>{1, 1, 1});
  position_setters(com);

  auto look = objective_class<LookAtObjective>(
      ik, "IKObjectiveLookAt",
      "The link's axis (link frame) from the link point points at a target point, within "
      "`cone` rad (3 rows; roll free)");
  look.def(
      py::init([](int link, py::handle offset, py::handle axis, py::handle targets, double cone,
                  double weight, bool hard) {
        auto o = make<LookAtObjective>("IKObjectiveLookAt", ObjectiveType::kLookAt, weight, hard);
        o->spec.params.link = link;
        o->spec.params.offset = vec3_of(offset, "IKObjectiveLookAt link_offset");
        o->spec.params.axis = vec3_of(axis, "IKObjectiveLookAt axis");
        o->spec.params.cone = cone;
        set_positions(*o, targets, "target_positions", true);
        return o;
      }),
      py::arg("link_index"), py::arg("link_offset"), py::arg("axis"), py::arg("target_positions"),
      py::arg("cone") = 0.0, py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false);
  position_setters(look);

  objective_class<AxisAlignObjective>(
      ik, "IKObjectiveAxisAlign",
      "The link's axis (link frame) parallel to a world direction, within `cone` rad (3 rows; "
      "roll free; no target)")
      .def(py::init([](int link, py::handle axis, py::handle direction, double cone, double weight,
                       bool hard) {
             auto o = make<AxisAlignObjective>("IKObjectiveAxisAlign", ObjectiveType::kAxisAlign,
                                               weight, hard);
             o->spec.params.link = link;
             o->spec.params.axis = vec3_of(axis, "IKObjectiveAxisAlign axis");
             o->spec.params.direction = vec3_of(direction, "IKObjectiveAxisAlign direction");
             o->spec.params.cone = cone;
             return o;
           }),
           py::arg("link_index"), py::arg("axis") = std::vector<double>{0, 0, 1},
           py::arg("direction") = std::vector<double>{0, 0, -1}, py::arg("cone") = 0.0,
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false);

  objective_class<CustomObjectivePy>(
      ik, "IKObjectiveCustom",
      "A residual written in Python: residual(q, body_q) -> dim values, with q "
      "(joint_coord_count) and body_q (body_count x 7, FK of q) as copies. Its Jacobian is "
      "finite differences (supports_analytic() is False); it runs under the GIL, so it "
      "serialises the solver's threads. An exception it raises is raised by step().")
      .def(py::init([](int dim, py::object residual, double weight, bool hard) {
             if (dim <= 0) throw py::value_error("IKObjectiveCustom: dim must be > 0");
             if (!PyCallable_Check(residual.ptr()))
               throw py::value_error("IKObjectiveCustom: residual must be callable");
             auto o =
                 make<CustomObjectivePy>("IKObjectiveCustom", ObjectiveType::kCustom, weight, hard);
             o->residual_fn = residual;
             o->custom_dim = dim;
             // a placeholder so that residual_dim() and the problem's checks see the size; each
             // solver binds its own callback (python_residual)
             o->spec.custom = std::make_shared<CustomObjective>();
             o->spec.custom->dim = dim;
             return o;
           }),
           py::arg("dim"), py::arg("residual"), py::arg("weight") = 1.0, py::kw_only(),
           py::arg("hard") = false);

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
