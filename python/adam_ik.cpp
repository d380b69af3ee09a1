// ikwb.InverseKinematics: adam's casadi InverseKinematics in shape (targets per frame, soft or
// hard, frame-to-frame and minimum-distance constraints, joint limits, warm start), solved by our
// IkProblem with the augmented Lagrangian for hard objectives. Where adam misbehaves we do not
// (docs/python.md): a soft FIXED constraint keeps the position too, problems with only hard
// constraints solve, the base of a fixed-base robot stays where it is put, and an initial guess
// given with set_initial_guess is the one the next solve starts from.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <mutex>

#include "engine/core/fk.hpp"
#include "python/bindings.hpp"
#include "solver/problem.hpp"
#include "solver/solver.hpp"

namespace ikwb::python {

namespace {

// a position (3,), or a column or row of three (CasADi's (3, 1) vectors, which adam code passes)
py::array_t<double, py::array::c_style> position_of(py::handle position, const std::string& what) {
  py::array a = py::array::ensure(position);
  if (a && a.ndim() == 2 && a.size() == 3 && (a.shape(0) == 1 || a.shape(1) == 1)) {
    py::object flat = a.attr("reshape")(3);
    return as_doubles(flat, what, {3});
  }
  return as_doubles(position, what, {3});
}

enum class TargetType { kPosition, kRotation, kPose };
enum class FramesConstraint { kBall, kFixed };

struct AdamTarget {
  std::string frame;
  TargetType type;
  int body;
  bool hard;
  double weight;
  bool position_set = false, rotation_set = false;
  Transform<double> target = transform_identity<double>();
};

// adam's solver_settings and set_solver take CasADi's and IPOPT's options ({"ipopt":
// {"print_level": 0}, "print_time": False} silences IPOPT): this solver is neither, so they are
// set aside with one warning naming them, and the rest (ours, by scene key) returned; code ported
// from adam stopped at a ValueError for them
py::dict without_ipopt_settings(const py::dict& settings, const std::string& what) {
  static const char* const kCasadi[] = {"print_time",
                                        "expand",
                                        "error_on_fail",
                                        "verbose",
                                        "verbose_init",
                                        "record_time",
                                        "jit",
                                        "jit_options",
                                        "compiler",
                                        "calc_lam_p",
                                        "calc_lam_x",
                                        "calc_multipliers",
                                        "print_in",
                                        "print_out",
                                        "bound_consistency",
                                        "common_options",
                                        "specific_options",
                                        "warn_initial_bounds",
                                        "iteration_callback",
                                        "show_eval_warnings"};
  py::dict ours;
  std::string set_aside;
  for (auto item : settings) {
    const std::string key = py::str(item.first);
    const bool casadi = key == "ipopt" || key.rfind("ipopt.", 0) == 0 ||
                        std::find(std::begin(kCasadi), std::end(kCasadi), key) != std::end(kCasadi);
    if (casadi)
      set_aside += (set_aside.empty() ? "'" : ", '") + key + "'";
    else
      ours[item.first] = item.second;
  }
  if (!set_aside.empty()) {
    const std::string text = what + ": CasADi / IPOPT settings " + set_aside +
                             " ignored: this solver is neither (its own settings go by scene "
                             "key: tol_position, iterations, ...)";
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
  }
  return ours;
}

const char* type_name(TargetType t) {
  return t == TargetType::kPosition ? "POSITION"
                                    : (t == TargetType::kRotation ? "ROTATION" : "POSE");
}

class AdamIK {
 public:
  AdamIK(const std::string& urdf_path, const std::vector<std::string>& joints_list,
         bool joint_limits_active, const py::object& solver_settings, bool floating_base,
         const std::vector<std::string>& package_paths)
      : joints_list_(joints_list), floating_(floating_base) {
    // the base pose is a variable: a free root joint is added, unless the file's root floats
    // already (an MJCF free joint, a URDF floating joint from a world link), which both loaders
    // refuse to float twice over, saying the robot "floats without floating_base=True"
    try {
      pymodel_ = load_model(urdf_path, true, package_paths, false);
    } catch (const ModelError& e) {
      if (std::string(e.what()).find("floats without floating_base=True") == std::string::npos)
        throw;
      pymodel_ = load_model(urdf_path, false, package_paths, false);
    }
    model_ = pymodel_->model;
    const Model& m = *model_;
    // the base: the free joint with only fixed joints above it (the one added, or the file's
    // own below a fixed world link)
    for (int j = 0; j < m.joint_count && base_ < 0; ++j) {
      bool from_world = JointType(m.joint_type[j]) == JointType::kFree;
      for (int a = m.joint_ancestor[j]; a >= 0 && from_world; a = m.joint_ancestor[a])
        from_world = m.joint_qd_start[a + 1] == m.joint_qd_start[a];
      if (from_world) base_ = j;
    }
    if (base_ < 0)
      throw py::value_error("InverseKinematics: " + urdf_path +
                            " did not load with a free root joint (a URDF with one root link)");
    for (const std::string& name : joints_list) {
      int j = m.find_joint(name);
      if (j < 0) throw py::value_error("InverseKinematics: unknown joint '" + name + "'");
      JointType t = JointType(m.joint_type[j]);
      if ((t != JointType::kRevolute && t != JointType::kContinuous &&
           t != JointType::kPrismatic) ||
          m.joint_mimic[j] >= 0)
        throw py::value_error("InverseKinematics: joint '" + name + "' is " + joint_type_name(t) +
                              (m.joint_mimic[j] >= 0 ? " (a mimic)" : "") +
                              "; joints_list takes revolute, continuous and prismatic joints");
      for (int d : dof_)
        if (d == m.joint_qd_start[j])
          throw py::value_error("InverseKinematics: joint '" + name + "' is listed twice");
      dof_.push_back(m.joint_qd_start[j]);
      coord_.push_back(m.joint_q_start[j]);
      lower_.push_back(m.dof_lower[m.joint_qd_start[j]]);
      upper_.push_back(m.dof_upper[m.joint_qd_start[j]]);
    }
    // a local solve from the start, re-seeded within the limits only when it does not converge
    // (or stalls): the initial guess decides whenever it leads to a solution
    settings_.max_restarts = 20;
    settings_.stall_window = kRestartStallWindow;
    settings_.hard_joint_limits = joint_limits_active;
    if (!solver_settings.is_none()) {
      if (!py::isinstance<py::dict>(solver_settings))
        throw py::value_error("InverseKinematics solver_settings: expected a dict");
      apply_settings(without_ipopt_settings(solver_settings.cast<py::dict>(),
                                            "InverseKinematics solver_settings"),
                     settings_, "InverseKinematics solver_settings");
    }
    q_ = m.neutral_configuration();
    solver_ = make_solver(settings_.backend, &backend_note_);
  }

  void add_target(const std::string& frame, TargetType type, bool soft, double weight) {
    int body = model_->find_body(frame);
    if (body < 0) throw py::value_error("add_target: unknown frame '" + frame + "'");
    for (const AdamTarget& t : targets_)
      if (t.frame == frame)
        throw py::value_error("add_target: target '" + frame + "' already exists");
    if (!(weight >= 0) || !std::isfinite(weight))
      throw py::value_error("add_target: weight must be finite and >= 0");
    targets_.push_back(AdamTarget{frame, type, body, !soft, weight});
  }

  void update_position(const std::string& frame, py::handle position) {
    set_position(frame, position, "update_target_position");
  }
  void update_orientation(const std::string& frame, py::handle rotation) {
    set_orientation(frame, rotation, "update_target_orientation");
  }
  void update_pose(const std::string& frame, py::handle position, py::handle rotation) {
    set_pose(frame, position, rotation, "update_target_pose");
  }

  void update(const std::string& frame, py::handle target) {
    if (py::isinstance<py::tuple>(target) || py::isinstance<py::list>(target)) {
      py::sequence s = py::reinterpret_borrow<py::sequence>(target);
      if (s.size() == 2 && !py::isinstance<py::float_>(s[0]) && !py::isinstance<py::int_>(s[0])) {
        AdamTarget& t = find(frame, "update_target");
        if (t.type != TargetType::kPose)
          throw py::value_error(
              "update_target: a (position, rotation) pair needs a POSE "
              "target; '" +
              frame + "' is a " + type_name(t.type) + " target");
        set_pose(frame, s[0], s[1], "update_target");
        return;
      }
    }
    py::array raw = py::array::ensure(target);
    if (!raw)
      throw py::value_error("update_target: expected an array or a (position, rotation) pair");
    auto a = as_doubles(raw, "update_target target", std::vector<py::ssize_t>(raw.ndim(), -1));
    if (a.size() == 3 && (a.ndim() == 1 || (a.ndim() == 2 && (a.shape(0) == 1 || a.shape(1) == 1))))
      set_position(frame, a, "update_target");
    else if ((a.ndim() == 2 && a.shape(0) == 3 && a.shape(1) == 3) ||
             (a.ndim() == 1 && a.shape(0) == 4))
      set_orientation(frame, a, "update_target");
    else
      throw py::value_error(
          "update_target: expected a position (3,), a rotation (3, 3) or "
          "quaternion (4,), or a (position, rotation) pair; got shape " +
          shape_text(a));
  }

  void add_frames_constraint(const std::string& parent, const std::string& child,
                             FramesConstraint type, bool soft, double weight) {
    if (parent == child)
      throw py::value_error(
          "add_frames_constraint: parent and child frames must be different, "
          "both are '" +
          parent + "'");
    Objective o;
    o.params.type = type == FramesConstraint::kBall ? ObjectiveType::kRelativeBall
                                                    : ObjectiveType::kRelativeFixed;
    o.params.link = frame_body(parent, "add_frames_constraint");
    o.params.link_b = frame_body(child, "add_frames_constraint");
    o.params.hard = soft ? 0 : 1;
    if (!(weight >= 0) || !std::isfinite(weight))
      throw py::value_error("add_frames_constraint: weight must be finite and >= 0, got " +
                            std::to_string(weight));
    // adam's cost is weight |r|^2, ours weighs the rows; FIXED: the frames coincide, position
    // and orientation
    o.params.weight = std::sqrt(weight);
    check_objective(o, "add_frames_constraint");
    constraints_.push_back(o);
  }

  void add_min_distance(const std::vector<std::string>& frames, double distance) {
    if (frames.size() < 2)
      throw py::value_error("add_min_distance_constraint: needs at least two frames");
    if (!(distance >= 0) || !std::isfinite(distance))
      throw py::value_error("add_min_distance_constraint: distance must be finite and >= 0");
    std::vector<Objective> added;
    for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
      Objective o;
      o.params.type = ObjectiveType::kMinDistance;
      o.params.link = frame_body(frames[i], "add_min_distance_constraint");
      o.params.link_b = frame_body(frames[i + 1], "add_min_distance_constraint");
      if (o.params.link == o.params.link_b)
        throw py::value_error("add_min_distance_constraint: frames " + std::to_string(i) + " and " +
                              std::to_string(i + 1) + " are both '" + frames[i] +
                              "': a frame keeps its distance to itself");
      o.params.distance = distance;
      o.params.hard = 1;
      check_objective(o, "add_min_distance_constraint");
      added.push_back(o);
    }
    constraints_.insert(constraints_.end(), added.begin(), added.end());
  }

  void set_joint_limits(py::handle lower, py::handle upper) {
    const py::ssize_t n = py::ssize_t(dof_.size());
    auto lo = as_doubles(lower, "set_joint_limits lower_bounds", {n});
    auto hi = as_doubles(upper, "set_joint_limits upper_bounds", {n});
    for (py::ssize_t i = 0; i < n; ++i)
      check_limit("set_joint_limits", int(i), lo.data()[i], hi.data()[i]);
    lower_.assign(lo.data(), lo.data() + n);
    upper_.assign(hi.data(), hi.data() + n);
    solve_model_.reset();
  }

  void set_joint_limit(const std::string& name, double lo, double hi) {
    int i = listed(name, "set_joint_limit");
    check_limit("set_joint_limit", i, lo, hi);
    lower_[i] = lo, upper_[i] = hi;
    solve_model_.reset();
  }

  // adam's set_solver(solver_name, solver_settings): CasADi picks its solver by name; here the
  // name is not used (said, unless it is adam's "ipopt"), CasADi's and IPOPT's settings are set
  // aside with a warning, and ours (by scene key) apply to the next solves
  void set_solver(const std::string& solver_name, const py::dict& solver_settings) {
    if (solver_name != "ipopt") {
      const std::string text = "set_solver: '" + solver_name +
                               "' is a CasADi solver; this one is not chosen by name, and "
                               "solves as before";
      if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
    }
    SolverSettings next = settings_;
    apply_settings(without_ipopt_settings(solver_settings, "set_solver"), next, "set_solver");
    std::lock_guard<std::mutex> lock(busy_);  // not while a solve in another thread reads them
    if (next.backend != settings_.backend) solver_ = make_solver(next.backend, &backend_note_);
    settings_ = next;
  }

  void set_initial_guess(py::handle base_transform, py::handle joint_values) {
    auto h = as_doubles(base_transform, "set_initial_guess base_transform", {4, 4});
    auto v = as_doubles(joint_values, "set_initial_guess joint_values", {py::ssize_t(dof_.size())});
    const double* d = h.data();
    if (d[12] != 0 || d[13] != 0 || d[14] != 0 || d[15] != 1)
      throw py::value_error("set_initial_guess base_transform: the last row must be 0, 0, 0, 1");
    double r[9] = {d[0], d[1], d[2], d[4], d[5], d[6], d[8], d[9], d[10]};
    Transform<double> base{{d[3], d[7], d[11]},
                           quat_from_matrix(r, "set_initial_guess base_transform")};
    for (py::ssize_t i = 0; i < 16; ++i)
      if (!std::isfinite(d[i]))
        throw py::value_error("set_initial_guess base_transform: NaN or inf");
    for (py::ssize_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v.data()[i]))
        throw py::value_error("set_initial_guess joint_values: NaN or inf");
    // the free root joint's coordinates that put the root body at `base`
    const Model& m = *model_;
    Transform<double> x = inverse(m.joint_X_p[base_]) * base * m.joint_X_c[base_];
    int qs = m.joint_q_start[base_];
    q_[qs] = x.p.x, q_[qs + 1] = x.p.y, q_[qs + 2] = x.p.z;
    q_[qs + 3] = x.q.x, q_[qs + 4] = x.q.y, q_[qs + 5] = x.q.z, q_[qs + 6] = x.q.w;
    for (std::size_t i = 0; i < coord_.size(); ++i) q_[coord_[i]] = v.data()[i];
    guessed_ = true;
  }

  void solve() {
    if (!solve_model_) {
      auto copy = std::make_shared<Model>(*model_);
      // the mimic joints following a listed joint keep their own limits
      for (std::size_t i = 0; i < dof_.size(); ++i) {
        double lo = lower_[i], hi = upper_[i];
        keep_mimic_limits(*model_, model_->dof_joint[dof_[i]], &lo, &hi);
        copy->dof_lower[dof_[i]] = lo, copy->dof_upper[dof_[i]] = hi;
      }
      solve_model_ = copy;
    }
    IkProblem problem(solve_model_, 1);
    for (const AdamTarget& t : targets_) {
      const bool pos = t.type != TargetType::kRotation, rot = t.type != TargetType::kPosition;
      if ((pos && !t.position_set) || (rot && !t.rotation_set))
        throw std::runtime_error("solve: the target of frame '" + t.frame + "' has no " +
                                 (pos && !t.position_set ? "position" : "orientation") +
                                 " yet (update_target_*)");
      ObjectiveOptions o;
      o.weight = std::sqrt(t.weight);  // adam's cost is weight |r|^2; ours weighs the rows
      o.hard = t.hard;
      int i = t.type == TargetType::kPosition   ? problem.add_position(t.body, {0, 0, 0}, o)
              : t.type == TargetType::kRotation ? problem.add_rotation(t.body, o)
                                                : problem.add_pose(t.body, {0, 0, 0}, o);
      problem.set_target_pose(i, 0, t.target);
    }
    for (const Objective& c : constraints_) problem.add_objective(c);
    const Model& m = *model_;
    std::vector<uint8_t> free(m.dof_count, 0);
    for (int d : dof_) free[d] = 1;
    if (floating_)
      for (int d = m.joint_qd_start[base_]; d < m.joint_qd_start[base_ + 1]; ++d) free[d] = 1;
    problem.set_dof_mask(free);
    // listed joints start inside their limits when the limits are enforced
    std::vector<double> q0 = q_;
    if (settings_.hard_joint_limits)
      for (std::size_t i = 0; i < dof_.size(); ++i)
        q0[coord_[i]] = std::min(std::max(q0[coord_[i]], lower_[i]), upper_[i]);
    SolveResult result;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(busy_);  // the solver object, one solve at a time
      // the guess first, alone and to its end, as a sequence's row starts from the row before:
      // with restarts to follow, a stall gave a guess that converges slowly up for a seed
      // elsewhere (a per-frame loop back into reach jumped 0.9 rad where the guess converged
      // 0.11 rad away in 8 iterations); the restarts only where it does not converge
      // `before` is a start of unknown standing: the restarts follow whenever the guess does not
      // converge (a sequence skips them after a compromise, as its targets move on a path; here
      // one target out of reach left the next reachable ones, far away, unconverged)
      ProblemResult before;
      before.constraint_violation = std::numeric_limits<double>::infinity();
      int compromise_rows = 0;
      // the first solve without a guess starts from the neutral pose, no answer of anyone's:
      // the restarts' better compromise is kept (two targets that cannot both hold were left
      // at 20 times the cost of the compromise the restarts found)
      solve_from_previous(*solver_, problem, settings_, q0, before, compromise_rows, result,
                          !solved_ && !guessed_);
    }
    result_ = std::move(result);  // under the GIL, like every read of result_
    q_ = result_.problems[0].q;   // the next solve starts here unless set_initial_guess says
    solved_ = true;
    // adam moves the base in every solve, so code ported from it may expect that: said once,
    // the first time the fixed base leaves a solve short (a retargeted humanoid converged in 107
    // of 600 frames, silently)
    if (!floating_ && !result_.problems[0].converged && !said_fixed_base_) {
      said_fixed_base_ = true;
      if (PyErr_WarnEx(PyExc_UserWarning,
                       "InverseKinematics.solve: not converged with the base held at the "
                       "initial guess's base_transform. adam optimises the base pose too: if "
                       "this robot's base should move (a humanoid, a mobile base), pass "
                       "floating_base=True; a bolted-down arm's targets may simply be out of "
                       "reach or in conflict (get_solution's errors say how far). Said once",
                       1) != 0)
        throw py::error_already_set();
    }
  }

  py::tuple get_solution() const {
    check_solved("get_solution");
    // the last solve's answer (q_ may hold the next start already: set_initial_guess gave it
    // back as the solution, converged still true)
    const std::vector<double>& q = result_.problems[0].q;
    State s(*model_);
    eval_fk(*model_, q, {}, s);
    py::array_t<double> v(py::ssize_t(coord_.size()));
    for (std::size_t i = 0; i < coord_.size(); ++i) v.mutable_data()[i] = q[coord_[i]];
    return py::make_tuple(matrix_of(s.body_q[model_->joint_child[base_]]), v);
  }

  const ProblemResult& result(const char* what) const {
    check_solved(what);
    return result_.problems[0];
  }

  py::dict targets() const {
    py::dict d;
    for (const AdamTarget& t : targets_) d[py::str(t.frame)] = t.type;
    return d;
  }

  // <ikwb.InverseKinematics 'ROBOT': J joints, T targets, C constraints, fixed|floating base>
  std::string repr() const {
    return "<ikwb.InverseKinematics '" + model_->name +
           "': " + std::to_string(joints_list_.size()) + " joints, " +
           std::to_string(targets_.size()) + " targets, " + std::to_string(constraints_.size()) +
           " constraints, " + (floating_ ? "floating" : "fixed") + " base>";
  }

  std::shared_ptr<PyModel> pymodel_;
  std::vector<std::string> joints_list_;
  std::string backend_note_;

 private:
  void set_position(const std::string& frame, py::handle position, const std::string& what) {
    AdamTarget& t = find(frame, what.c_str());
    if (t.type == TargetType::kRotation)
      throw py::value_error(what + ": target '" + frame + "' is a ROTATION target");
    auto p = position_of(position, what + " position");
    t.target.p = target_position(p.data(), what);
    t.position_set = true;
  }

  void set_orientation(const std::string& frame, py::handle rotation, const std::string& what) {
    AdamTarget& t = find(frame, what.c_str());
    if (t.type == TargetType::kPosition)
      throw py::value_error(what + ": target '" + frame + "' is a POSITION target");
    t.target.q = rotation_of(rotation, what + " rotation");
    t.rotation_set = true;
  }

  void set_pose(const std::string& frame, py::handle position, py::handle rotation,
                const std::string& what) {
    AdamTarget& t = find(frame, what.c_str());
    if (t.type != TargetType::kPose)
      throw py::value_error(what + ": target '" + frame + "' is a " + type_name(t.type) +
                            " target, not a POSE target");
    // both read before either is set: a bad rotation leaves the position as it was
    auto p = position_of(position, what + " position");
    const Vec3<double> at = target_position(p.data(), what);
    t.target.q = rotation_of(rotation, what + " rotation");
    t.target.p = at;
    t.position_set = t.rotation_set = true;
  }

  AdamTarget& find(const std::string& frame, const char* what) {
    for (AdamTarget& t : targets_)
      if (t.frame == frame) return t;
    throw py::value_error(std::string(what) + ": no target for frame '" + frame + "'");
  }
  int frame_body(const std::string& frame, const char* what) const {
    int b = model_->find_body(frame);
    if (b < 0) throw py::value_error(std::string(what) + ": unknown frame '" + frame + "'");
    return b;
  }
  int listed(const std::string& name, const char* what) const {
    for (std::size_t i = 0; i < joints_list_.size(); ++i)
      if (joints_list_[i] == name) return int(i);
    throw py::value_error(std::string(what) + ": joint '" + name + "' is not in joints_list");
  }
  // limits lo..hi for listed joint i, or ValueError
  void check_limit(const char* what, int i, double lo, double hi) const {
    const std::string& name = joints_list_[std::size_t(i)];
    if (std::isnan(lo) || std::isnan(hi) || lo > hi)
      throw py::value_error(std::string(what) + ": joint '" + name +
                            "': lower limit above the upper one (or NaN)");
    // (solve() then blamed a q_init the caller never gave)
    if (lo == HUGE_VAL || hi == -HUGE_VAL)
      throw py::value_error(std::string(what) + ": joint '" + name + "': limits [" +
                            number_text(lo) + ", " + number_text(hi) + "] hold no finite value");
    const JointType t = JointType(model_->joint_type[model_->dof_joint[dof_[std::size_t(i)]]]);
    if (t == JointType::kContinuous && (std::isfinite(lo) || std::isfinite(hi)))
      throw py::value_error(std::string(what) + ": joint '" + name +
                            "' is continuous: it has no limits (give -inf and inf)");
    const int j = model_->dof_joint[dof_[std::size_t(i)]];
    if (!keep_mimic_limits(*model_, j, &lo, &hi))
      throw py::value_error(std::string(what) + ": joint '" + name +
                            "': no value within these limits keeps " +
                            mimics_within_limits_text(*model_, j));
  }
  void check_objective(const Objective& o, const char* what) const {
    IkProblem probe(model_, 1);
    try {
      probe.add_objective(o);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(std::string(what) + ": " + e.what());
    }
  }
  void check_solved(const char* what) const {
    if (!solved_) throw std::runtime_error(std::string(what) + ": solve() has not run yet");
  }
  static Quat<double> rotation_of(py::handle r, const std::string& what) {
    py::array a = py::array::ensure(r);
    if (a && a.ndim() == 1) {
      auto q = as_doubles(r, what, {4});
      return unit_quat(q.data(), what);
    }
    auto m = as_doubles(r, what, {3, 3});
    return quat_from_matrix(m.data(), what);
  }

  std::shared_ptr<const Model> model_;        // loaded with a free root joint
  std::shared_ptr<const Model> solve_model_;  // the same with the listed joints' limits
  bool floating_;
  int base_ = -1;                 // the base's free joint
  std::vector<int> dof_, coord_;  // of each listed joint
  std::vector<double> lower_, upper_;
  std::vector<AdamTarget> targets_;
  std::vector<Objective> constraints_;
  SolverSettings settings_;
  std::vector<double> q_;  // the next solve's start: initial guess, or the last solution
  bool guessed_ = false;   // set_initial_guess has given q_
  std::unique_ptr<IkSolver> solver_;
  SolveResult result_;
  std::mutex busy_;
  bool solved_ = false;
  bool said_fixed_base_ = false;  // the warning of solve() about a fixed base was given
};

}  // namespace

void bind_adam(py::module_& m) {
  py::enum_<TargetType>(m, "TargetType", "Type of IK target (adam's TargetType)")
      .value("POSITION", TargetType::kPosition)
      .value("ROTATION", TargetType::kRotation)
      .value("POSE", TargetType::kPose);
  py::enum_<FramesConstraint>(m, "FramesConstraint", "Constraint between two frames")
      .value("BALL", FramesConstraint::kBall)
      .value("FIXED", FramesConstraint::kFixed);

  auto add = [](TargetType t) {
    return [t](AdamIK& ik, const std::string& frame, bool soft, double weight) {
      ik.add_target(frame, t, soft, weight);
    };
  };
  auto frames = [](FramesConstraint t) {
    return [t](AdamIK& ik, const std::string& p, const std::string& c, bool soft, double w) {
      ik.add_frames_constraint(p, c, t, soft, w);
    };
  };
  py::class_<AdamIK>(m, "InverseKinematics",
                     "IK in adam's InverseKinematics shape: targets per frame (soft or hard), "
                     "frame constraints, minimum distances, joint limits, warm start. The robot "
                     "is loaded with a free root joint; its base moves only with "
                     "floating_base=True.")
      .def(py::init([](const std::filesystem::path& urdf_path,
                       const std::vector<std::string>& joints_list, bool joint_limits_active,
                       const py::object& solver_settings, bool floating_base,
                       const std::vector<std::filesystem::path>& package_paths) {
             return std::make_unique<AdamIK>(urdf_path.string(), joints_list, joint_limits_active,
                                             solver_settings, floating_base,
                                             path_texts(package_paths));
           }),
           py::arg("urdf_path"), py::arg("joints_list"), py::arg("joint_limits_active") = true,
           py::arg("solver_settings") = py::none(), py::kw_only(), py::arg("floating_base") = false,
           py::arg("package_paths") = std::vector<std::filesystem::path>(),
           "urdf_path: a URDF (xacro, MJCF, or a shipped robot's name); joints_list: the "
           "revolute, continuous or prismatic joints that move, in the order of the solution's "
           "values; joint_limits_active: keep them within their limits; solver_settings: a dict "
           "of solver settings by scene key (CasADi's and IPOPT's are ignored with a warning); "
           "floating_base: the base pose moves too. ValueError for unknown or unsupported joints "
           "and unknown settings.")
      .def_property_readonly(
          "ndof", [](const AdamIK& ik) { return int(ik.joints_list_.size()); },
          "Number of listed joints (the length of the solution's joint values)")
      .def_property_readonly(
          "joints_list", [](const AdamIK& ik) { return ik.joints_list_; },
          "The listed joints' names, in the order of the solution's joint values")
      .def_property_readonly(
          "model", [](const AdamIK& ik) { return ik.pymodel_; },
          "The ikwb.Model it solves on (loaded with a free root joint)")
      .def_property_readonly("targets", &AdamIK::targets, "A dict: frame -> TargetType")
      .def(
          "add_target",
          [](AdamIK& ik, const std::string& frame, TargetType t, bool soft, double w) {
            ik.add_target(frame, t, soft, w);
          },
          py::arg("frame"), py::arg("target_type"), py::kw_only(),
          py::arg("as_soft_constraint") = true, py::arg("weight") = 1.0,
          "Adds a target on a frame (a body): TargetType.POSITION, ROTATION or POSE; soft (a "
          "cost scaled by weight) or hard (an equality constraint). Its value comes from "
          "update_target_*. ValueError for an unknown frame, a second target on one, or a "
          "weight that is negative or not finite.")
      .def("add_target_position", add(TargetType::kPosition), py::arg("frame"), py::kw_only(),
           py::arg("as_soft_constraint") = true, py::arg("weight") = 1.0,
           "add_target(frame, TargetType.POSITION, ...)")
      .def("add_target_orientation", add(TargetType::kRotation), py::arg("frame"), py::kw_only(),
           py::arg("as_soft_constraint") = true, py::arg("weight") = 1.0,
           "add_target(frame, TargetType.ROTATION, ...)")
      .def("add_target_pose", add(TargetType::kPose), py::arg("frame"), py::kw_only(),
           py::arg("as_soft_constraint") = true, py::arg("weight") = 1.0,
           "add_target(frame, TargetType.POSE, ...)")
      .def("add_frames_constraint", &AdamIK::add_frames_constraint, py::arg("parent_frame"),
           py::arg("child_frame"), py::arg("constraint_type"), py::arg("as_soft_constraint") = true,
           py::arg("weight") = 1e5,
           "Constrains two frames: FramesConstraint.BALL (their origins coincide, 3 rows) or "
           "FIXED (they coincide, position and orientation, 6 rows); soft (weighted) or hard. "
           "ValueError for an unknown frame.")
      .def("add_ball_constraint", frames(FramesConstraint::kBall), py::arg("parent_frame"),
           py::arg("child_frame"), py::arg("as_soft_constraint") = true, py::arg("weight") = 1e5,
           "add_frames_constraint(parent_frame, child_frame, FramesConstraint.BALL, ...)")
      .def("add_fixed_constraint", frames(FramesConstraint::kFixed), py::arg("parent_frame"),
           py::arg("child_frame"), py::arg("as_soft_constraint") = true, py::arg("weight") = 1e5,
           "add_frames_constraint(parent_frame, child_frame, FramesConstraint.FIXED, ...)")
      .def("add_min_distance_constraint", &AdamIK::add_min_distance, py::arg("frames_list"),
           py::arg("distance"),
           "Hard inequalities: consecutive frames of frames_list (at least two) keep their "
           "origins at least `distance` m apart. ValueError for an unknown frame or a negative "
           "distance.")
      .def("set_joint_limits", &AdamIK::set_joint_limits, py::arg("lower_bounds"),
           py::arg("upper_bounds"),
           "Limits of the listed joints (ndof values each, joints_list order; rad or m) for the "
           "next solves. ValueError for wrong sizes, NaN, lower > upper or finite limits of a "
           "continuous joint (it has none).")
      .def("set_joint_limit", &AdamIK::set_joint_limit, py::arg("joint_name"),
           py::arg("lower_limit"), py::arg("upper_limit"),
           "Limits of one listed joint (rad or m). ValueError for a joint not in joints_list, "
           "NaN, lower > upper or finite limits of a continuous joint (it has none).")
      .def("update_target_position", &AdamIK::update_position, py::arg("frame"),
           py::arg("position"), "Sets the world position (3,) in m of a POSITION or POSE target")
      .def("update_target_orientation", &AdamIK::update_orientation, py::arg("frame"),
           py::arg("rotation"),
           "Sets the world orientation of a ROTATION or POSE target: a 3x3 rotation matrix or a "
           "quaternion x, y, z, w (unit within 1e-3)")
      .def("update_target_pose", &AdamIK::update_pose, py::arg("frame"), py::arg("position"),
           py::arg("rotation"),
           "Sets a POSE target: position (3,) in m and rotation (3x3 matrix or quaternion)")
      .def("update_target", &AdamIK::update, py::arg("frame"), py::arg("target"),
           "Sets a target by the value's shape: a position (3,), a rotation (3, 3) or "
           "quaternion (4,), or a (position, rotation) pair for a POSE target")
      .def("set_solver", &AdamIK::set_solver, py::arg("solver_name"), py::arg("solver_settings"),
           "adam's set_solver: the solver is not chosen by name; CasADi's and IPOPT's settings "
           "are ignored with a warning, ours (by scene key) apply to the next solves")
      .def("set_initial_guess", &AdamIK::set_initial_guess, py::arg("base_transform"),
           py::arg("joint_values"),
           "Where the next solve starts: base_transform (4x4 homogeneous, the base's world "
           "pose) and joint_values (ndof, joints_list order). Without it a solve starts from "
           "the previous solution.")
      .def("__repr__", &AdamIK::repr)
      .def("solve", &AdamIK::solve,
           "Solves from the initial guess (or the previous solution), re-seeding within the "
           "limits when that does not converge. The GIL is released. RuntimeError when a "
           "target has no value yet.")
      .def("get_solution", &AdamIK::get_solution,
           "(4x4 base transform, joint values in joints_list order); RuntimeError before solve()")
      .def_property_readonly(
          "converged", [](const AdamIK& ik) { return ik.result("converged").converged; },
          "The last solve met the tolerances on its targets (tol_position, tol_rotation) and "
          "hard constraints (tol_constraint); RuntimeError before solve()")
      .def_property_readonly(
          "position_error",
          [](const AdamIK& ik) { return ik.result("position_error").position_error; },
          "The largest position error over the targets and frame constraints of the last "
          "solve, m")
      .def_property_readonly(
          "rotation_error",
          [](const AdamIK& ik) { return ik.result("rotation_error").rotation_error; },
          "The largest rotation error over the targets and FIXED constraints of the last "
          "solve, rad")
      .def_property_readonly(
          "constraint_violation",
          [](const AdamIK& ik) { return ik.result("constraint_violation").constraint_violation; },
          "The largest violation of a hard target or constraint after the last solve (m or rad)")
      .def_property_readonly(
          "iterations", [](const AdamIK& ik) { return ik.result("iterations").iterations; },
          "Iterations of the last solve (its restarts included)");
}

}  // namespace ikwb::python
