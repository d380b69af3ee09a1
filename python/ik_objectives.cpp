// ikwb.ik's objective classes: each kind's parameters and one target per base problem, in
// newton.ik's shape (IKObjectivePosition's constructor and target setters).
#include <cfloat>
#include <cmath>

#include "python/ik_objective.hpp"

namespace ikwb::python {

namespace {

thread_local const StepScope* t_current_step = nullptr;

// makes `step` the thread's current step while it lives
class CurrentStep {
 public:
  explicit CurrentStep(const StepScope* step) : outer_(t_current_step) { t_current_step = step; }
  ~CurrentStep() { t_current_step = outer_; }
  CurrentStep(const CurrentStep&) = delete;
  CurrentStep& operator=(const CurrentStep&) = delete;

 private:
  const StepScope* outer_;
};

}  // namespace

const StepScope* current_step() {
  return t_current_step;
}

std::shared_ptr<CustomObjective> python_residual(py::object fn, int dim, int index,
                                                 std::shared_ptr<ResidualContext> context) {
  // the callable is released under the GIL, wherever the last copy goes
  std::shared_ptr<py::object> f(new py::object(std::move(fn)), [](py::object* o) {
    py::gil_scoped_acquire gil;
    delete o;
  });
  auto c = std::make_shared<CustomObjective>();
  c->dim = dim;
  c->residual = [f, dim, index, context](const Model& m, const double* q,
                                         const Transform<double>* x, double* r) {
    std::fill(r, r + dim, 0.0);
    py::gil_scoped_acquire gil;
    {
      std::lock_guard<std::mutex> lock(context->mutex);
      if (context->error) return;
    }
    const std::string what = "custom objective " + std::to_string(index);
    try {
      CurrentStep scope(context->step);
      py::array qa(py::dtype::of<double>(), {py::ssize_t(m.coord_count)}, q);  // copies
      py::array xa(py::dtype::of<double>(), {py::ssize_t(m.body_count), py::ssize_t(7)},
                   reinterpret_cast<const double*>(x));
      auto out = as_doubles((*f)(qa, xa), "IKObjectiveCustom residual (" + what + ")", {dim});
      for (int k = 0; k < dim; ++k)
        if (!std::isfinite(out.data()[k]))
          throw py::value_error(what + " returned a non-finite residual (row " + std::to_string(k) +
                                ": " + number_text(out.data()[k]) + ")");
      std::copy(out.data(), out.data() + dim, r);
    } catch (...) {
      std::lock_guard<std::mutex> lock(context->mutex);
      if (!context->error) context->error = std::current_exception();
    }
  };
  return c;
}

namespace {

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
struct PositionBoxObjective : PyObjective {};
struct OrientationConeObjective : PyObjective {};
struct SupportPolygonObjective : PyObjective {};
struct ManipulabilityObjective : PyObjective {};

// three numbers (a box's bounds: -inf and inf stand for an open side)
Vec3<double> vec3_of(py::handle v, const std::string& what) {
  auto a = as_doubles(v, what, {3});
  const double* d = a.data();
  return {d[0], d[1], d[2]};
}

// three finite numbers, checked when given ("IKObjectivePosition link_offset must be finite,
// got [nan, 0, 0]"), where the core would refuse them only once a solver adds the objective
Vec3<double> finite_vec3(py::handle v, const std::string& what) {
  Vec3<double> x = vec3_of(v, what);
  if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
    throw py::value_error(what + " must be finite, got [" + number_text(x.x) + ", " +
                          number_text(x.y) + ", " + number_text(x.z) + "]");
  return x;
}

// a direction: finite and not zero ("IKObjectiveLookAt axis must be a finite, non-zero vector,
// got [0.0, 0.0, 0.0]"), as the solver requires when it adds the objective
Vec3<double> direction_vec3(py::handle v, const std::string& what) {
  const Vec3<double> x = vec3_of(v, what);
  if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z) || !(length(x) > 0))
    throw py::value_error(what + " must be a finite, non-zero vector, got [" + number_text(x.x) +
                          ", " + number_text(x.y) + ", " + number_text(x.z) + "]");
  return x;
}

// per-axis weights: finite and >= 0
Vec3<double> axis_weights(py::handle v, const std::string& what) {
  Vec3<double> x = finite_vec3(v, what);
  if (x.x < 0 || x.y < 0 || x.z < 0)
    throw py::value_error(what + " must be >= 0, got [" + number_text(x.x) + ", " +
                          number_text(x.y) + ", " + number_text(x.z) + "]");
  return x;
}

// a parameter checked when it is given, with the rule the core applies when a solver adds the
// objective ("IKObjectiveMinDistance.distance must be finite and >= 0, got -1.0")
double checked(double v, double lo, double hi, const std::string& what, const char* rule) {
  if (!(v >= lo && v <= hi))
    throw py::value_error(what + " must be " + rule + ", got " + number_text(v));
  return v;
}

double checked_weight(double w, const std::string& class_name) {
  return checked(w, 0, DBL_MAX, class_name + ".weight", "finite and >= 0");
}

double checked_cone(double cone, const std::string& class_name) {
  return checked(cone, 0, 3.141592653589793, class_name + ".cone", "an angle in [0, pi] rad");
}

template <class T>
std::shared_ptr<T> make(const char* name, ObjectiveType type, double weight, bool hard) {
  auto o = std::make_shared<T>();
  o->class_name = name;
  o->spec.params.type = type;
  o->spec.params.weight = checked_weight(weight, name);
  o->spec.params.hard = hard ? 1 : 0;
  return o;
}

void set_positions(PyObjective& o, py::handle p, const std::string& what, bool resize) {
  if (!resize) o.check_has_targets(what);
  auto a =
      as_doubles(p, o.class_name + "." + what, {resize ? -1 : py::ssize_t(o.targets.size()), 3});
  if (resize) o.targets.assign(a.shape(0), transform_identity<double>());
  for (py::ssize_t i = 0; i < a.shape(0); ++i)
    o.targets[i].p = target_position(a.data() + 3 * i,
                                     o.class_name + "." + what + " target " + std::to_string(i));
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
    o.targets[i].p = target_position(d, o.class_name + "." + what + " target " + std::to_string(i));
    o.targets[i].q = unit_quat(d + 3, o.class_name + "." + what + " row " + std::to_string(i));
  }
}

py::array positions_of(const PyObjective& o) {
  py::array_t<double> a({py::ssize_t(o.targets.size()), py::ssize_t(3)});
  for (std::size_t i = 0; i < o.targets.size(); ++i)
    for (int k = 0; k < 3; ++k) a.mutable_data()[3 * i + k] = o.targets[i].p[k];
  return read_only(a);
}

py::array rotations_of(const PyObjective& o) {
  py::array_t<double> a({py::ssize_t(o.targets.size()), py::ssize_t(4)});
  for (std::size_t i = 0; i < o.targets.size(); ++i) {
    const Quat<double>& q = o.targets[i].q;
    double* d = a.mutable_data() + 4 * i;
    d[0] = q.x, d[1] = q.y, d[2] = q.z, d[3] = q.w;
  }
  return read_only(a);
}

// the setters of a kind whose target has a position
template <class C>
void position_setters(C& c) {
  c.def(
       "set_target_position",
       [](PyObjective& o, int i, py::handle p) {
         o.check_problem(i, "set_target_position");
         auto a = as_doubles(p, o.class_name + ".set_target_position new_position", {3});
         o.targets[i].p =
             target_position(a.data(), o.class_name + ".set_target_position new_position");
       },
       py::arg("problem_idx"), py::arg("new_position"),
       "Target position [m], world frame, of one base problem")
      .def(
          "set_target_positions",
          [](PyObjective& o, py::handle p) { set_positions(o, p, "set_target_positions", false); },
          py::arg("new_positions"), "Target positions of every base problem, [problem_count, 3]")
      .def_property_readonly("target_positions", &positions_of,
                             "A read-only copy, [problem_count, 3]");
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
      .def_property_readonly("target_rotations", &rotations_of,
                             "A read-only copy, [problem_count, 4]");
}

template <class T>
py::class_<T, PyObjective, std::shared_ptr<T>> objective_class(py::module_& ik, const char* name,
                                                               const char* doc) {
  return py::class_<T, PyObjective, std::shared_ptr<T>>(ik, name, doc);
}

}  // namespace

void bind_ik_objectives(py::module_& ik) {
  py::class_<PyObjective, std::shared_ptr<PyObjective>>(ik, "IKObjective", "Base of the objectives")
      .def(
          "residual_dim",
          [](const PyObjective& o) {
            if (o.spec.custom) return o.spec.custom->dim;
            int dim = o.kind().dim(o.dof_count, int(o.spec.points.size()));
            if (dim < 0)
              throw py::value_error(
                  o.class_name +
                  ".residual_dim: one row per dof; known once an IKSolver holds the objective" +
                  (o.spec.params.type == ObjectiveType::kJointLimits ? " (or from its limit arrays)"
                                                                     : ""));
            return dim;
          },
          "Rows this objective adds to each problem (ValueError for a per-dof kind before a "
          "solver holds it)")
      .def(
          "supports_analytic",
          [](const PyObjective& o) { return o.spec.params.type != ObjectiveType::kCustom; },
          "True when its Jacobian is analytic (every built-in kind; a custom residual's is "
          "finite differences)")
      .def_property(
          "weight", [](const PyObjective& o) { return o.spec.params.weight; },
          [](PyObjective& o, double w) { o.spec.params.weight = checked_weight(w, o.class_name); },
          "Scales residual and Jacobian rows; editable, applied at the next step()")
      .def_property(
          "enabled", [](const PyObjective& o) { return bool(o.spec.params.enabled); },
          [](PyObjective& o, bool e) { o.spec.params.enabled = e ? 1 : 0; },
          "A disabled objective writes zero rows (a disabled IKObjectiveJointLimit's limits do "
          "not apply either); editable, applied at the next step()")
      .def_property_readonly(
          "hard", [](const PyObjective& o) { return bool(o.spec.params.hard); },
          "An augmented-Lagrangian constraint (counted by IKSolver.converged through "
          "tol_constraint) rather than a weighted cost")
      .def_property_readonly(
          "kind", [](const PyObjective& o) { return o.kind().name; },
          "The kind's scene name ('position', 'joint_limits', 'custom', ...)")
      .def_property_readonly(
          "problem_count", [](const PyObjective& o) { return int(o.targets.size()); },
          "Number of base problems its targets are for (0 for kinds without targets)")
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
            o->spec.params.offset = finite_vec3(offset, "IKObjectivePosition link_offset");
            o->spec.params.position_weights =
                axis_weights(position_weights, "IKObjectivePosition position_weights");
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
  rot.def(py::init([](int link, py::handle offset_rotation, py::handle targets,
                      py::handle weight_arg, bool hard, py::handle rotation_weights) {
            // Newton's fourth argument is canonicalize_quat_err (a bool): taken for the weight,
            // False would switch the objective off and True weigh it 1
            if (py::isinstance<py::bool_>(weight_arg))
              throw py::type_error(
                  "IKObjectiveRotation weight: got a bool; Newton's fourth argument "
                  "canonicalize_quat_err has no counterpart here (the error is always the "
                  "shortest rotation): leave it out, or pass weight=...");
            if (!PyNumber_Check(weight_arg.ptr()))
              throw py::type_error(
                  "IKObjectiveRotation weight: expected a number, got " +
                  std::string(py::str(py::type::handle_of(weight_arg).attr("__name__"))));
            const double weight = py::float_(py::reinterpret_borrow<py::object>(weight_arg));
            auto o = make<RotationObjective>("IKObjectiveRotation", ObjectiveType::kRotation,
                                             weight, hard);
            o->spec.params.link = link;
            auto r = as_doubles(offset_rotation, "IKObjectiveRotation link_offset_rotation", {4});
            o->rotation_offset = unit_quat(r.data(), "IKObjectiveRotation link_offset_rotation");
            o->spec.params.rotation_weights =
                axis_weights(rotation_weights, "IKObjectiveRotation rotation_weights");
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
             o->spec.params.offset = finite_vec3(offset, "IKObjectivePose link_offset");
             o->spec.params.position_weights = axis_weights(pw, "IKObjectivePose position_weights");
             o->spec.params.rotation_weights = axis_weights(rw, "IKObjectivePose rotation_weights");
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
            // as every other target's (it took 1e7 m without a word)
            o.targets[i].p = target_position(a.data(), o.class_name + ".set_target_pose new_pose");
            o.targets[i].q = unit_quat(a.data() + 3, o.class_name + ".set_target_pose new_pose");
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
      "the projection onto the limits (setting hard_joint_limits). Only enabled ones apply; "
      "several enabled ones combine to the tightest limits (per dof the largest lower and "
      "smallest upper; ValueError naming the joint when that leaves no range).")
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
               // (a lower +inf or an upper -inf left no value: the solver wrote inf, NaN errors)
               for (py::ssize_t i = 0; i < lo.size(); ++i)
                 if (std::isnan(lo.data()[i]) || std::isnan(hi.data()[i]) ||
                     lo.data()[i] > hi.data()[i] || lo.data()[i] == HUGE_VAL ||
                     hi.data()[i] == -HUGE_VAL)
                   throw py::value_error("IKObjectiveJointLimit: dof " + std::to_string(i) +
                                         " (in joint_qd order) has lower " +
                                         number_text(lo.data()[i]) + " and upper " +
                                         number_text(hi.data()[i]) +
                                         ": each must be a number, lower <= upper, with a "
                                         "finite value between them");
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
               for (std::size_t i = 0; i < o->spec.rest_q.size(); ++i)
                 if (!std::isfinite(o->spec.rest_q[i]))
                   throw py::value_error("IKObjectivePosture rest_q must be finite, got " +
                                         number_text(o->spec.rest_q[i]) + " at " +
                                         std::to_string(i));
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
             o->spec.params.offset = finite_vec3(oa, "IKObjectiveRelativeBall offset_a");
             o->spec.params.offset_b = finite_vec3(ob, "IKObjectiveRelativeBall offset_b");
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
             // finite and within 1e6 m, as a target (its NaN waited for a solver)
             o->spec.params.relative.p =
                 target_position(r.data(), "IKObjectiveRelativeFixed relative");
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
             // (two points of one link keep their distance: it held always or never)
             if (a == b && a >= 0)  // (a link index out of range has its own error)
               throw py::value_error("IKObjectiveMinDistance: link_a and link_b are both " +
                                     std::to_string(a) +
                                     ": two points of one link keep their distance");
             o->spec.params.link = a, o->spec.params.link_b = b;
             o->spec.params.offset = finite_vec3(oa, "IKObjectiveMinDistance offset_a");
             o->spec.params.offset_b = finite_vec3(ob, "IKObjectiveMinDistance offset_b");
             o->spec.params.distance = checked(
                 distance, 0, DBL_MAX, "IKObjectiveMinDistance.distance", "finite and >= 0");
             return o;
           }),
           py::arg("link_a"), py::arg("offset_a"), py::arg("link_b"), py::arg("offset_b"),
           py::arg("distance"), py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);

  auto com = objective_class<ComObjective>(ik, "IKObjectiveCom",
                                           "The model's centre of mass at a target point (3 rows)");
  com.def(py::init([](py::handle targets, double weight, bool hard, py::handle pw) {
            auto o = make<ComObjective>("IKObjectiveCom", ObjectiveType::kCom, weight, hard);
            o->spec.params.position_weights = axis_weights(pw, "IKObjectiveCom position_weights");
            set_positions(*o, targets, "target_positions", true);
            return o;
          }),
          py::arg("target_positions"), py::arg("weight") = 1.0, py::kw_only(),
          py::arg("hard") = false, py::arg("position_weights") = std::vector<double>{1, 1, 1});
  position_setters(com);

  auto look = objective_class<LookAtObjective>(
      ik, "IKObjectiveLookAt",
      "The link's axis (link frame) from the link point points at a target point, within "
      "`cone` rad (3 rows; roll free). With target_link instead of target_positions it points at "
      "the point target_offset of that link, which it follows (no targets)");
  look.def(
      py::init([](int link, py::handle offset, py::handle axis, py::handle targets, double cone,
                  double weight, bool hard, int target_link, py::handle target_offset) {
        auto o = make<LookAtObjective>("IKObjectiveLookAt", ObjectiveType::kLookAt, weight, hard);
        o->spec.params.link = link;
        o->spec.params.offset = finite_vec3(offset, "IKObjectiveLookAt link_offset");
        o->spec.params.axis = direction_vec3(axis, "IKObjectiveLookAt axis");
        o->spec.params.cone = checked_cone(cone, o->class_name);
        if ((target_link >= 0) == !targets.is_none())
          throw py::value_error(std::string("IKObjectiveLookAt: give one of target_positions or "
                                            "target_link (>= 0); ") +
                                (target_link >= 0 ? "both were given" : "neither was given"));
        if (target_link >= 0) {
          o->spec.params.link_b = target_link;
          o->spec.params.offset_b = finite_vec3(target_offset, "IKObjectiveLookAt target_offset");
        } else {
          set_positions(*o, targets, "target_positions", true);
        }
        return o;
      }),
      py::arg("link_index"), py::arg("link_offset"), py::arg("axis"),
      py::arg("target_positions") = py::none(), py::arg("cone") = 0.0, py::arg("weight") = 1.0,
      py::kw_only(), py::arg("hard") = false, py::arg("target_link") = -1,
      py::arg("target_offset") = std::vector<double>{0, 0, 0});
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
             o->spec.params.axis = direction_vec3(axis, "IKObjectiveAxisAlign axis");
             o->spec.params.direction = direction_vec3(direction, "IKObjectiveAxisAlign direction");
             o->spec.params.cone = checked_cone(cone, o->class_name);
             return o;
           }),
           py::arg("link_index"), py::arg("axis") = std::vector<double>{0, 0, 1},
           py::arg("direction") = std::vector<double>{0, 0, -1}, py::arg("cone") = 0.0,
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = false);

  auto box = objective_class<PositionBoxObjective>(
      ik, "IKObjectivePositionBox",
      "A point on a link inside a box given in a target frame (3 inequality rows); lower / upper "
      "per target axis, m, -inf / inf leave a side open");
  box.def(py::init([](int link, py::handle offset, py::handle targets, py::handle lower,
                      py::handle upper, double weight, bool hard) {
            auto o = make<PositionBoxObjective>("IKObjectivePositionBox",
                                                ObjectiveType::kPositionBox, weight, hard);
            o->spec.params.link = link;
            o->spec.params.offset = finite_vec3(offset, "IKObjectivePositionBox link_offset");
            o->spec.params.box_lower = vec3_of(lower, "IKObjectivePositionBox lower");
            o->spec.params.box_upper = vec3_of(upper, "IKObjectivePositionBox upper");
            for (int k = 0; k < 3; ++k) {
              const double lo = o->spec.params.box_lower[k], hi = o->spec.params.box_upper[k];
              if (!(lo <= hi) || lo == HUGE_VAL || hi == -HUGE_VAL)
                throw py::value_error("IKObjectivePositionBox: axis " + std::to_string(k) +
                                      " needs lower <= upper (not NaN; -inf / inf open a side), "
                                      "got " +
                                      number_text(lo) + " and " + number_text(hi));
            }
            set_poses(*o, targets, "target_poses", true);
            return o;
          }),
          py::arg("link_index"), py::arg("link_offset"), py::arg("target_poses"), py::arg("lower"),
          py::arg("upper"), py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);
  position_setters(box);
  rotation_setters(box);

  auto cone = objective_class<OrientationConeObjective>(
      ik, "IKObjectiveOrientationCone",
      "The angle between a link's orientation and a target orientation at most `cone` rad (1 "
      "inequality row)");
  cone.def(py::init([](int link, py::handle targets, double cone_angle, double weight, bool hard) {
             auto o = make<OrientationConeObjective>("IKObjectiveOrientationCone",
                                                     ObjectiveType::kOrientationCone, weight, hard);
             o->spec.params.link = link;
             o->spec.params.cone = checked_cone(cone_angle, o->class_name);
             set_rotations(*o, targets, "target_rotations", true);
             return o;
           }),
           py::arg("link_index"), py::arg("target_rotations"), py::arg("cone"),
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);
  rotation_setters(cone);

  objective_class<SupportPolygonObjective>(
      ik, "IKObjectiveSupportPolygon",
      "The centre of mass projected along world z inside the convex hull of contact points "
      "(link_indices[i], points[i] in that link's frame), `margin` m inside (one inequality row "
      "per point; no target)")
      .def(py::init([](py::handle links, py::handle points, double margin, double weight,
                       bool hard) {
             std::vector<int> l = as_ints(links, "IKObjectiveSupportPolygon link_indices");
             // checked here, where the mistake is made, as well as when a solver is built
             if (l.empty() || l.size() > std::size_t(kMaxContactPoints))
               throw py::value_error("IKObjectiveSupportPolygon: needs 1 to " +
                                     std::to_string(kMaxContactPoints) + " contact points, got " +
                                     std::to_string(l.size()));
             for (int link : l)
               if (link < 0)
                 throw py::value_error("IKObjectiveSupportPolygon link_indices: " +
                                       std::to_string(link) + " is not a link index");
             auto p =
                 as_doubles(points, "IKObjectiveSupportPolygon points", {py::ssize_t(l.size()), 3});
             for (py::ssize_t i = 0; i < p.size(); ++i)
               if (!std::isfinite(p.data()[i]))
                 throw py::value_error("IKObjectiveSupportPolygon points: contact point " +
                                       std::to_string(i / 3) + " has NaN or infinite values");
             auto o = make<SupportPolygonObjective>("IKObjectiveSupportPolygon",
                                                    ObjectiveType::kSupportPolygon, weight, hard);
             o->spec.params.margin = checked(margin, 0, 1e3, "IKObjectiveSupportPolygon.margin",
                                             "finite, >= 0 and <= 1e3 m");
             for (std::size_t i = 0; i < l.size(); ++i)
               o->spec.points.push_back(
                   {l[i], {p.data()[3 * i], p.data()[3 * i + 1], p.data()[3 * i + 2]}});
             return o;
           }),
           py::arg("link_indices"), py::arg("points"), py::arg("margin") = 0.02,
           py::arg("weight") = 1.0, py::kw_only(), py::arg("hard") = true);

  objective_class<ManipulabilityObjective>(
      ik, "IKObjectiveManipulability",
      "Yoshikawa's measure sqrt(det(J J^T)) of a link point's position Jacobian at least "
      "`min_measure` (1 inequality row, and 3 rows that never act)")
      .def(py::init([](int link, py::handle offset, double min_measure, double weight, bool hard) {
             auto o = make<ManipulabilityObjective>("IKObjectiveManipulability",
                                                    ObjectiveType::kManipulability, weight, hard);
             o->spec.params.link = link;
             o->spec.params.offset = finite_vec3(offset, "IKObjectiveManipulability link_offset");
             o->spec.params.min_measure =
                 checked(min_measure, 0, DBL_MAX, "IKObjectiveManipulability.min_measure",
                         "finite and >= 0");
             return o;
           }),
           py::arg("link_index"), py::arg("link_offset") = std::vector<double>{0, 0, 0},
           py::arg("min_measure") = 0.0, py::arg("weight") = 1.0, py::kw_only(),
           py::arg("hard") = false);

  objective_class<CustomObjectivePy>(
      ik, "IKObjectiveCustom",
      "A residual written in Python: residual(q, body_q) -> dim finite values, with q "
      "(joint_coord_count) and body_q (body_count x 7, FK of q) as copies. Its Jacobian is "
      "finite differences (supports_analytic() is False); it runs under the GIL, so it "
      "serialises the solver's threads. An exception it raises is raised by step(), as is a "
      "ValueError for a result of the wrong size or with NaN or inf. Soft, its rows are a cost "
      "that IKSolver.converged does not judge; hard (an equality), their norm is a violation "
      "that converged holds to tol_constraint.")
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
}

}  // namespace ikwb::python
