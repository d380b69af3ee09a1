// ikwb.Model, ikwb.State, eval_fk / eval_ik and their batched forms (newton.eval_fk's shape and
// semantics; engine/core/fk.hpp does the work).
#include <pybind11/eval.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/fk.hpp"
#include "python/bindings.hpp"

namespace ikwb::python {

namespace {

static_assert(sizeof(Transform<double>) == 7 * sizeof(double), "body_q rows are 7 doubles");
static_assert(sizeof(Spatial<double>) == 6 * sizeof(double), "body_qd rows are 6 doubles");

struct PyState {
  State state;
  // Newton's State.joint_q and joint_qd: copies of the model's when the state is made, then
  // what is written into them; eval_fk takes them as arguments
  // (eval_fk(model, state.joint_q, state.joint_qd, state)) and does not change them
  std::vector<double> joint_q, joint_qd;
};

// the model's joint_q and joint_qd, made on first use
PyModel& with_joint_arrays(PyModel& p) {
  if (!p.joint_arrays) {
    p.joint_q = p.model->neutral_configuration();
    p.joint_qd.assign(std::size_t(p.model->dof_count), 0.0);
    p.joint_arrays = true;
  }
  return p;
}
PyModel& model_joint_arrays(py::handle self) {
  return with_joint_arrays(self.cast<PyModel&>());
}

PyState& state_of(py::handle self) {
  return self.cast<PyState&>();
}

// a new State of the model, its joint_q and joint_qd copies of the model's (Newton's
// Model.state() clones them: model.joint_q[:] = q0; state = model.state() starts at q0)
PyState make_state(PyModel& model) {
  const PyModel& p = with_joint_arrays(model);
  return PyState{State(*p.model), p.joint_q, p.joint_qd};
}

// The getter and setter of a float64 vector member of a Model or State (joint_q, joint_qd): a
// writable view of it; assigning an array copies into it. owner(self): the object holding it.
template <class Owner>
auto vector_get(std::vector<double> Owner::*member, Owner& (*owner)(py::handle)) {
  return [member, owner](py::object self) {
    std::vector<double>& v = owner(self).*member;
    return view_of(v.data(), {py::ssize_t(v.size())}, self, true);
  };
}
template <class Owner>
auto vector_set(std::vector<double> Owner::*member, Owner& (*owner)(py::handle), const char* what) {
  return [member, owner, what](py::object self, py::handle values) {
    std::vector<double>& v = owner(self).*member;
    auto a = as_doubles(values, what, {py::ssize_t(v.size())});
    std::copy_n(a.data(), v.size(), v.data());
  };
}

int body_index(const Model& m, const std::string& name) {
  int b = m.find_body(name);
  if (b < 0) throw py::value_error("unknown body '" + name + "'");
  return b;
}

int joint_index(const Model& m, const std::string& name) {
  int j = m.find_joint(name);
  if (j < 0) throw py::value_error("unknown joint '" + name + "'");
  return j;
}

py::array bools_array(const std::vector<uint8_t>& v) {
  py::array_t<bool> a(py::ssize_t(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) a.mutable_data()[i] = v[i] != 0;
  return a;
}

// a new ikwb.Array of v (newton_array)
py::array doubles_array(const std::vector<double>& v) {
  py::array_t<double> a(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return newton_array(a);
}

// "row 2, " in a batch's messages, "" for a single configuration

// `rows` x body_count poses (width 7) or twists (width 6) of `what`: finite, and the poses'
// quaternions not zero. ValueError naming the row (of a batch), the body and the column.
void check_body_values(const Model& m, const double* v, py::ssize_t rows, int width, bool batch,
                       const std::string& what) {
  for (py::ssize_t r = 0; r < rows; ++r)
    for (int b = 0; b < m.body_count; ++b) {
      const double* x = v + (r * m.body_count + b) * width;
      auto body = [&] {
        return row_text(r, batch) + "body " + std::to_string(b) + " ('" + m.body_name[b] + "')";
      };
      for (int c = 0; c < width; ++c)
        if (!std::isfinite(x[c]))
          throw py::value_error(what + ": " + body() + ", column " + std::to_string(c) + " is " +
                                number_text(x[c]) + "; values must be finite");
      if (width == 7 && !(quat_norm(Quat<double>{x[3], x[4], x[5], x[6]}) > 1e-9))
        throw py::value_error(what + ": " + body() + " has a zero quaternion (columns 3 to 6)");
    }
}

// mask / indices / body_flag_filter / joint_mask as FkOptions (the vectors live in the caller)
struct FkFilters {
  std::vector<uint8_t> mask, joint_mask;
  std::vector<int> indices;
  FkOptions options;
  FkFilters(const py::object& m, const py::object& i, int flags, const py::object& jm,
            const std::string& caller) {
    if (flags < 0 || flags > kBodyAll)
      throw py::value_error(caller + " body_flag_filter: " + std::to_string(flags) +
                            " is not a combination of ikwb.BodyFlags (0 to " +
                            std::to_string(int(kBodyAll)) + ")");
    if (!m.is_none()) mask = as_bools(m, caller + " mask"), options.mask = &mask;
    if (!i.is_none()) indices = as_ints(i, caller + " indices"), options.indices = &indices;
    if (!jm.is_none())
      joint_mask = as_bools(jm, caller + " joint_mask"), options.joint_mask = &joint_mask;
    options.body_flag_filter = flags;
  }
};

// The quaternions of read parent poses that are not unit, normalised for one FK call and put
// back after it (the bodies are no bodies of the call: their bytes stay the caller's).
class NormalisedParents {
 public:
  NormalisedParents() = default;
  NormalisedParents(const NormalisedParents&) = delete;
  NormalisedParents& operator=(const NormalisedParents&) = delete;
  ~NormalisedParents() {
    for (const auto& [q, original] : saved_) *q = original;
  }
  void add(Quat<double>* q) {
    const Quat<double> unit = normalize_unless_unit(*q);
    if (unit.x == q->x && unit.y == q->y && unit.z == q->z && unit.w == q->w) return;
    saved_.push_back({q, *q});
    *q = unit;
  }

 private:
  std::vector<std::pair<Quat<double>*, Quat<double>>> saved_;
};

// Masked FK reads the pose (and twist) a selected joint's parent body holds when no selected
// joint of this call writes that body first (one the body_flag_filter passes): NaN or inf there
// would come back as NaN poses, a zero quaternion as poses without a rotation. A ValueError names
// the row, the body and the column ("eval_fk state.body_q: body 3 ('panda_link3'), read as the
// parent of the selected joint 'panda_joint4', column 0 is nan"). A quaternion that is not unit
// is read as the rotation it stands for (one of norm 2 went on to every body of the branch):
// normalised in `parents` for the call. sel: fk_joint_selection; n rows of body_count poses (and
// twists, or null).
void check_read_parents(const Model& m, const std::vector<uint8_t>& sel, int flags,
                        Transform<double>* body_q, const Spatial<double>* body_qd, std::size_t n,
                        const std::string& what_q, const std::string& what_qd, bool rows,
                        NormalisedParents& parents) {
  std::vector<Quat<double>*> read;  // normalised once every read pose passes
  for (int j = 0; j < m.joint_count; ++j) {
    if (!sel[std::size_t(j)]) continue;
    const int p = m.joint_parent[j];
    if (p < 0) continue;
    const int pj = m.body_joint[p];
    // written first (the filter's other bodies keep what they hold: a filter that passed every
    // body refused NaN in a buffer it wrote over, as a parent read)
    if (pj >= 0 && sel[std::size_t(pj)] && (m.body_flags[p] & flags)) continue;
    for (std::size_t r = 0; r < n; ++r) {
      const auto where = [&] {
        return (rows ? "row " + std::to_string(r) + ", " : std::string()) + "body " +
               std::to_string(p) + " ('" + m.body_name[p] +
               "'), read as the parent of the selected joint '" + m.joint_name[j] + "'";
      };
      Transform<double>& x = body_q[r * m.body_count + p];
      const double* xv = reinterpret_cast<const double*>(&x);
      const double* v =
          body_qd ? reinterpret_cast<const double*>(body_qd + r * m.body_count + p) : nullptr;
      for (int k = 0; k < 7 + (v ? 6 : 0); ++k) {
        const double value = k < 7 ? xv[k] : v[k - 7];
        if (std::isfinite(value)) continue;
        throw py::value_error((k < 7 ? what_q : what_qd) + ": " + where() + ", column " +
                              std::to_string(k < 7 ? k : k - 7) + " is " + number_text(value) +
                              "; values must be finite");
      }
      if (!(quat_norm(x.q) > 1e-9))
        throw py::value_error(what_q + ": " + where() + ", has a zero quaternion (columns 3 to 6)");
      read.push_back(&x.q);
    }
  }
  for (Quat<double>* q : read) parents.add(q);
}

void copy_rows(const py::array_t<double, py::array::c_style>& from, double* to) {
  std::copy(from.data(), from.data() + from.size(), to);
}

void eval_fk_py(const PyModel& pm, py::handle joint_q, py::handle joint_qd, PyState& st,
                const py::object& mask, const py::object& indices, int flags,
                const py::object& joint_mask) {
  const Model& m = *pm.model;
  FkFilters f(mask, indices, flags, joint_mask, "eval_fk");
  auto q = as_doubles(joint_q, "eval_fk joint_q", {-1});
  std::vector<double> qv(q.data(), q.data() + q.size()), qdv;
  if (!joint_qd.is_none()) {
    auto qd = as_doubles(joint_qd, "eval_fk joint_qd", {-1});
    qdv.assign(qd.data(), qd.data() + qd.size());
  }
  if (st.state.body_q.size() != std::size_t(m.body_count))
    throw ModelError("eval_fk state: made for a model with " +
                     std::to_string(st.state.body_q.size()) + " bodies, this one has " +
                     std::to_string(m.body_count));
  // wrong sizes get the core's message
  if (qv.size() == std::size_t(m.coord_count))
    check_joint_values(m, qv.data(), 1, true, false, "eval_fk joint_q");
  if (qdv.size() == std::size_t(m.dof_count))
    check_joint_values(m, qdv.data(), 1, false, false, "eval_fk joint_qd");
  NormalisedParents parents;
  if (qv.size() == std::size_t(m.coord_count) &&
      (qdv.empty() || qdv.size() == std::size_t(m.dof_count)))
    check_read_parents(m, fk_joint_selection(m, f.options, "eval_fk"), flags,
                       st.state.body_q.data(), qdv.empty() ? nullptr : st.state.body_qd.data(), 1,
                       "eval_fk state.body_q", "eval_fk state.body_qd", false, parents);
  eval_fk(m, qv, qdv, st.state, f.options);
}

// A ValueError when two arrays of a call (an output and an input, or two outputs) share bytes:
// rows would be written while they are still to be read. Unset arrays (size 0) never do.
void refuse_overlap(const py::array& a, const char* a_name, const py::array& b, const char* b_name,
                    const std::string& caller) {
  if (a.size() == 0 || b.size() == 0) return;
  const char* a0 = static_cast<const char*>(a.data());
  const char* b0 = static_cast<const char*>(b.data());
  if (a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes())
    throw py::value_error(caller + ": " + a_name + " and " + b_name +
                          " share memory; pass separate arrays");
}

py::tuple eval_fk_batch_py(const PyModel& pm, py::handle joint_q, py::handle joint_qd,
                           py::handle body_q, py::handle body_qd, const py::object& mask,
                           const py::object& indices, int flags, const py::object& joint_mask) {
  const Model& m = *pm.model;
  const std::string c = "eval_fk_batch";
  FkFilters f(mask, indices, flags, joint_mask, c);
  std::vector<uint8_t> sel = fk_joint_selection(m, f.options, c.c_str());
  auto q = as_doubles(joint_q, c + " joint_q", {-1, m.coord_count});
  const py::ssize_t n = q.shape(0), nb = m.body_count;
  py::array_t<double, py::array::c_style> qd;
  const bool vel = !joint_qd.is_none();
  if (vel) qd = as_doubles(joint_qd, c + " joint_qd", {n, m.dof_count});
  if (!vel && !body_qd.is_none())
    throw py::value_error(c + ": body_qd needs joint_qd (twists come from joint velocities)");
  check_joint_values(m, q.data(), n, true, true, c + " joint_q");
  if (vel) check_joint_values(m, qd.data(), n, false, true, c + " joint_qd");
  auto out = [&](py::handle given, const char* name, py::ssize_t width,
                 bool identity) -> py::array_t<double, py::array::c_style> {
    if (!given.is_none()) return as_output(given, c + " " + name, {n, nb, width});
    py::array_t<double, py::array::c_style> a({n, nb, width});
    std::fill(a.mutable_data(), a.mutable_data() + a.size(), 0.0);
    if (identity)
      for (py::ssize_t r = 0; r < n * nb; ++r) a.mutable_data()[r * 7 + 6] = 1.0;
    return a;
  };
  auto xq = out(body_q, "body_q", 7, true);
  py::object xqd_obj = py::none();
  py::array_t<double, py::array::c_style> xqd;
  if (vel) xqd = out(body_qd, "body_qd", 6, false), xqd_obj = xqd;
  refuse_overlap(xq, "body_q", q, "joint_q", c);
  refuse_overlap(xq, "body_q", qd, "joint_qd", c);
  refuse_overlap(xqd, "body_qd", q, "joint_q", c);
  refuse_overlap(xqd, "body_qd", qd, "joint_qd", c);
  refuse_overlap(xq, "body_q", xqd, "body_qd", c);
  const double* qp = q.data();
  const double* qdp = vel ? qd.data() : nullptr;
  auto* bq = reinterpret_cast<Transform<double>*>(xq.mutable_data());
  auto* bqd = vel ? reinterpret_cast<Spatial<double>*>(xqd.mutable_data()) : nullptr;
  NormalisedParents parents;
  if (!body_q.is_none() || !body_qd.is_none())  // given arrays: what they hold is read
    check_read_parents(m, sel, flags, bq, body_qd.is_none() ? nullptr : bqd, std::size_t(n),
                       c + " body_q", c + " body_qd", true, parents);
  {
    py::gil_scoped_release release;
    fk_rows(m, std::size_t(n), qp, qdp, sel.data(), flags, bq, bqd);
  }
  return py::make_tuple(xq, xqd_obj);
}

void eval_ik_py(const PyModel& pm, const PyState& st, py::handle joint_q, py::handle joint_qd) {
  const Model& m = *pm.model;
  auto q = as_output(joint_q, "eval_ik joint_q", {m.coord_count});
  std::vector<double> qv(q.data(), q.data() + q.size()), qdv;
  py::array_t<double, py::array::c_style> qd;
  if (!joint_qd.is_none()) qd = as_output(joint_qd, "eval_ik joint_qd", {m.dof_count});
  // (the velocities were written over the coordinates, as eval_ik_batch refuses)
  refuse_overlap(q, "joint_q", qd, "joint_qd", "eval_ik");
  if (st.state.body_q.size() != std::size_t(m.body_count) ||
      st.state.body_qd.size() != std::size_t(m.body_count))
    throw ModelError("eval_ik state: made for a model with " +
                     std::to_string(st.state.body_q.size()) + " bodies, this one has " +
                     std::to_string(m.body_count));
  check_body_values(m, reinterpret_cast<const double*>(st.state.body_q.data()), 1, 7, false,
                    "eval_ik state.body_q");
  if (!joint_qd.is_none())
    check_body_values(m, reinterpret_cast<const double*>(st.state.body_qd.data()), 1, 6, false,
                      "eval_ik state.body_qd");
  eval_ik(m, st.state, qv, joint_qd.is_none() ? nullptr : &qdv);
  std::copy(qv.begin(), qv.end(), q.mutable_data());
  if (!joint_qd.is_none()) std::copy(qdv.begin(), qdv.end(), qd.mutable_data());
}

void eval_ik_batch_py(const PyModel& pm, py::handle body_q, py::handle joint_q, py::handle body_qd,
                      py::handle joint_qd) {
  const Model& m = *pm.model;
  const std::string c = "eval_ik_batch";
  // the input's rows set the count, so a joint_q of other rows is the one named wrong
  const py::ssize_t nb = m.body_count;
  auto xq = as_doubles(body_q, c + " body_q", {-1, nb, 7});
  const py::ssize_t n = xq.shape(0);
  auto q = as_output(joint_q, c + " joint_q", {n, m.coord_count});
  const bool vel = !joint_qd.is_none();
  py::array_t<double, py::array::c_style> xqd, qd;
  if (!vel && !body_qd.is_none())
    throw py::value_error(c + ": body_qd needs joint_qd (the joint velocities are written there)");
  if (vel) {
    if (body_qd.is_none()) throw py::value_error(c + ": joint_qd needs body_qd");
    xqd = as_doubles(body_qd, c + " body_qd", {n, nb, 6});
    qd = as_output(joint_qd, c + " joint_qd", {n, m.dof_count});
  }
  refuse_overlap(q, "joint_q", xq, "body_q", c);
  refuse_overlap(q, "joint_q", xqd, "body_qd", c);
  refuse_overlap(qd, "joint_qd", xq, "body_q", c);
  refuse_overlap(qd, "joint_qd", xqd, "body_qd", c);
  refuse_overlap(q, "joint_q", qd, "joint_qd", c);
  check_body_values(m, xq.data(), n, 7, true, c + " body_q");
  if (vel) check_body_values(m, xqd.data(), n, 6, true, c + " body_qd");
  State s(m);
  std::vector<double> qv(m.coord_count), qdv;
  for (py::ssize_t r = 0; r < n; ++r) {
    std::copy(xq.data() + r * nb * 7, xq.data() + (r + 1) * nb * 7,
              reinterpret_cast<double*>(s.body_q.data()));
    if (vel)
      std::copy(xqd.data() + r * nb * 6, xqd.data() + (r + 1) * nb * 6,
                reinterpret_cast<double*>(s.body_qd.data()));
    std::copy(q.data() + r * m.coord_count, q.data() + (r + 1) * m.coord_count, qv.begin());
    eval_ik(m, s, qv, vel ? &qdv : nullptr);
    std::copy(qv.begin(), qv.end(), q.mutable_data() + r * m.coord_count);
    if (vel) std::copy(qdv.begin(), qdv.end(), qd.mutable_data() + r * m.dof_count);
  }
}

// the getter of a read-only view of one of the model's arrays, of `count` (+ extra) values
template <class T>
auto model_array(std::vector<T> Model::*array, int Model::*count, int extra = 0) {
  return [array, count, extra](py::object self) {
    const Model& mm = *self.cast<PyModel&>().model;
    return view_of((mm.*array).data(), {py::ssize_t(mm.*count + extra)}, self, false);
  };
}

}  // namespace

void bind_model_fk(py::module_& m) {
  py::enum_<BodyFlag>(m, "BodyFlags", py::arithmetic(), "Body flags (Model.body_flags)")
      .value("DYNAMIC", kBodyDynamic)
      .value("KINEMATIC", kBodyKinematic)
      .value("ALL", kBodyAll);
  py::enum_<JointType> joint_type(m, "JointType",
                                  "Joint types (Model.joint_type holds their values, int8); "
                                  "they compare equal to those integers");
  joint_type.value("FIXED", JointType::kFixed)
      .value("REVOLUTE", JointType::kRevolute)
      .value("CONTINUOUS", JointType::kContinuous)
      .value("PRISMATIC", JointType::kPrismatic)
      .value("BALL", JointType::kBall)
      .value("FREE", JointType::kFree)
      .value("PLANAR", JointType::kPlanar);
  // equal to its integer value too (an enum class compares only with itself in pybind11), so
  // that model.joint_type == ikwb.JointType.REVOLUTE is an elementwise test of the int8 array
  auto equals = [](JointType a, py::handle b) -> py::object {
    // an integer (or integer scalar); anything else (arrays too) answers by its own __eq__
    auto i = py::reinterpret_steal<py::object>(
        PyIndex_Check(b.ptr()) && !py::isinstance<py::array>(b) ? PyNumber_Index(b.ptr())
                                                                : nullptr);
    if (!i) {
      PyErr_Clear();
      return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    }
    return py::bool_(py::int_(int(a)).equal(i));
  };
  // (replacing pybind11's own methods: def() would add overloads after them)
  joint_type.attr("__eq__") = py::cpp_function(equals, py::is_method(joint_type));
  joint_type.attr("__ne__") = py::cpp_function(
      [equals](JointType a, py::handle b) -> py::object {
        py::object e = equals(a, b);
        return e.is(py::handle(Py_NotImplemented)) ? e : py::bool_(!e.cast<bool>());
      },
      py::is_method(joint_type));

  py::class_<PyModel, std::shared_ptr<PyModel>> model(
      m, "Model",
      "A robot model: bodies and joints in topological order (structure of arrays), immutable but "
      "for its joint_q and joint_qd. "
      "Array attributes are read-only views of the C++ model.");
  model
      .def_static(
          "from_urdf",
          [](const std::filesystem::path& path, bool floating_base,
             const std::vector<std::filesystem::path>& package_paths, bool strict,
             const std::vector<std::string>& xacro_args) {
            return load_model(path.string(), floating_base, path_texts(package_paths), strict,
                              xacro_args);
          },
          py::arg("path"), py::arg("floating_base") = false,
          py::arg("package_paths") = std::vector<std::filesystem::path>(),
          py::arg("strict") = false, py::arg("xacro_args") = std::vector<std::string>(),
          "Loads a URDF (also xacro or MJCF, or a shipped robot's name such as 'panda'). "
          "floating_base attaches the root with a free joint (7 coords, 6 dofs); "
          "xacro_args: 'NAME:=VALUE' strings for a .xacro file's xacro run. "
          "Raises ikwb.ModelError (a ValueError) naming the file and the problem.")
      // the kinematics are immutable: a copy shares them, and a deep copy has joint_q and
      // joint_qd of its own; a pickle is how to load it (the file is read again where it is
      // unpickled, e.g. by a multiprocessing worker)
      .def("__copy__", [](py::object self) { return self; })
      .def("__deepcopy__",
           [](py::object self, py::object) {
             return std::make_shared<PyModel>(model_joint_arrays(self));
           })
      .def("__reduce__",
           [](const PyModel& p) {
             return py::make_tuple(
                 py::module_::import("ikwb").attr("_model_from_pickle"),
                 py::make_tuple(p.path, p.floating_base, p.package_paths, p.strict, p.xacro_args));
           })
      .def_property_readonly(
          "body_count", [](const PyModel& p) { return p.model->body_count; }, "Number of bodies")
      .def_property_readonly(
          "joint_count", [](const PyModel& p) { return p.model->joint_count; },
          "Number of joints (fixed ones included)")
      .def_property_readonly(
          "joint_coord_count", [](const PyModel& p) { return p.model->coord_count; },
          "Length of joint_q: 1 per revolute, continuous or prismatic joint, 4 per ball "
          "(quaternion x, y, z, w), 7 per free joint (x, y, z, then the quaternion), 3 per "
          "planar joint")
      .def_property_readonly(
          "joint_dof_count", [](const PyModel& p) { return p.model->dof_count; },
          "Length of joint_qd and of the limit arrays: 1 per revolute, continuous or prismatic "
          "joint, 3 per ball, 6 per free joint, 3 per planar joint")
      .def_property_readonly(
          "articulation_count", [](const PyModel& p) { return p.model->articulation_count; },
          "Number of articulations (trees of joints from a root)")
      .def_property_readonly(
          "joint_q_start", model_array(&Model::joint_q_start, &Model::joint_count, 1),
          "(joint_count + 1,) int32: joint j's coordinates are joint_q[joint_q_start[j]:"
          "joint_q_start[j + 1]]; the last entry is joint_coord_count")
      .def_property_readonly(
          "joint_qd_start", model_array(&Model::joint_qd_start, &Model::joint_count, 1),
          "(joint_count + 1,) int32: joint j's dofs are joint_qd[joint_qd_start[j]:"
          "joint_qd_start[j + 1]]; the last entry is joint_dof_count")
      .def_property_readonly(
          "joint_ancestor", model_array(&Model::joint_ancestor, &Model::joint_count),
          "(joint_count,) int32: the parent joint, -1 at a root (joint_ancestor[j] < j)")
      .def_property_readonly("joint_parent", model_array(&Model::joint_parent, &Model::joint_count),
                             "(joint_count,) int32: the parent body, -1 for the world")
      .def_property_readonly("joint_child", model_array(&Model::joint_child, &Model::joint_count),
                             "(joint_count,) int32: the child body")
      .def_property_readonly("joint_type", model_array(&Model::joint_type, &Model::joint_count),
                             "(joint_count,) int8: ikwb.JointType values (model.joint_type == "
                             "ikwb.JointType.REVOLUTE is a bool array)")
      .def_property_readonly("joint_articulation",
                             model_array(&Model::joint_articulation, &Model::joint_count),
                             "(joint_count,) int32: the articulation each joint belongs to")
      .def_property_readonly("articulation_start",
                             model_array(&Model::articulation_start, &Model::articulation_count, 1),
                             "(articulation_count + 1,) int32: articulation a has the joints "
                             "articulation_start[a] .. articulation_start[a + 1] - 1")
      .def_property_readonly(
          "joint_limit_lower", model_array(&Model::dof_lower, &Model::dof_count),
          "(joint_dof_count,) float64: lower limit per dof, rad or m; -inf when unlimited")
      .def_property_readonly(
          "joint_limit_upper", model_array(&Model::dof_upper, &Model::dof_count),
          "(joint_dof_count,) float64: upper limit per dof, rad or m; +inf when unlimited")
      .def_property_readonly(
          "body_flags", model_array(&Model::body_flags, &Model::body_count),
          "(body_count,) int32: ikwb.BodyFlags bits (DYNAMIC, KINEMATIC) of each body")
      .def_property_readonly("body_mass", model_array(&Model::body_mass, &Model::body_count),
                             "(body_count,) float64: mass of each body, kg")
      .def_property_readonly(
          "body_com",
          [](py::object self) {
            const Model& mm = *self.cast<PyModel&>().model;
            return view_of(reinterpret_cast<const double*>(mm.body_com.data()), {mm.body_count, 3},
                           self, false);
          },
          "(body_count, 3) float64: centre of mass of each body in its frame, m")
      .def_property_readonly(
          "body_key", [](const PyModel& p) { return p.model->body_name; },
          "Body names (a list, body_count)")
      .def_property_readonly(
          "joint_key", [](const PyModel& p) { return p.model->joint_name; },
          "Joint names (a list, joint_count)")
      .def_property_readonly(
          "articulation_key", [](const PyModel& p) { return p.model->articulation_name; },
          "Articulation names (a list, articulation_count)")
      .def_property_readonly(
          "name", [](const PyModel& p) { return p.model->name; }, "The robot's name")
      .def_property_readonly(
          "device", [](const PyModel&) { return "cpu"; },
          "'cpu': the model and its arrays are in host memory (Newton's Model.device)")
      .def_property_readonly(
          "source_path", [](const PyModel& p) { return p.model->source_path; },
          "The file the model was loaded from")
      .def_property_readonly(
          "warnings", [](const PyModel& p) { return p.warnings; },
          "What loading repaired or could not find (a list of messages)")
      .def_property("joint_q", vector_get(&PyModel::joint_q, model_joint_arrays),
                    vector_set(&PyModel::joint_q, model_joint_arrays, "Model.joint_q"),
                    "(joint_coord_count,) float64, the model's own joint coordinates as Newton's: "
                    "the neutral configuration at load (the robot file's home, zero and identity "
                    "quaternions; an MJCF's qpos0, with 1-dof joints clamped into their limits), "
                    "then what is written into it (eval_ik(model, state, model.joint_q), "
                    "model.joint_q[3] = -1.0; assigning an array copies into it). Not pickled: a "
                    "pickled model starts neutral again")
      .def_property("joint_qd", vector_get(&PyModel::joint_qd, model_joint_arrays),
                    vector_set(&PyModel::joint_qd, model_joint_arrays, "Model.joint_qd"),
                    "(joint_dof_count,) float64, the model's own joint velocities as Newton's: "
                    "zero at load, then what is written into it (as joint_q): eval_fk(model, "
                    "model.joint_q, model.joint_qd, state) runs as there")
      .def(
          "middle_configuration",
          [](const PyModel& p) { return doubles_array(p.model->middle_configuration()); },
          "Centre of the limits for limited joints, neutral elsewhere (a new array)")
      .def(
          "body_index",
          [](const PyModel& p, const std::string& n) { return body_index(*p.model, n); },
          py::arg("name"), "Index of a body by name; ValueError when unknown")
      .def(
          "joint_index",
          [](const PyModel& p, const std::string& n) { return joint_index(*p.model, n); },
          py::arg("name"), "Index of a joint by name; ValueError when unknown")
      .def(
          "joint_descendants",
          [](const PyModel& p, int j) { return joint_descendants(*p.model, j); }, py::arg("joint"),
          "Joints below `joint` (not itself), in topological order (from joint_ancestor)")
      .def(
          "branch_joint_mask",
          [](const PyModel& p, int j, bool d) {
            return bools_array(branch_joint_mask(*p.model, j, d));
          },
          py::arg("joint"), py::arg("with_descendants") = true,
          "A joint_mask for eval_fk selecting `joint` and, with_descendants, its branch; joints "
          "that mimic a selected one join it (they move with it)")
      .def(
          "state",
          [](PyModel& self, bool requires_grad) {
            if (requires_grad)
              throw py::value_error(
                  "Model.state: requires_grad=True: ikwb has no gradients (its Jacobians are "
                  "analytic; see ikwb.ik)");
            return make_state(self);
          },
          py::arg("requires_grad") = false,
          "A new State: identity body poses, zero twists, joint_q and joint_qd copies of the "
          "model's (requires_grad, Newton's, must be False)")
      .def("__repr__", [](const PyModel& p) {
        const Model& mm = *p.model;
        return "<ikwb.Model '" + mm.name + "': " + std::to_string(mm.body_count) + " bodies, " +
               std::to_string(mm.joint_count) + " joints, " + std::to_string(mm.coord_count) +
               " coords, " + std::to_string(mm.dof_count) + " dofs>";
      });

  py::class_<PyState>(
      m, "State",
      "Body state written by eval_fk: body_q (body_count x 7: position, then "
      "quaternion x, y, z, w) and body_qd (body_count x 6: v_com_world, "
      "omega_world); and joint_q / joint_qd, as Newton's State has them. All are writable "
      "views of the state's own memory.")
      .def(py::init([](PyModel& model) { return make_state(model); }), py::arg("model"),
           "A state for `model`: identity body poses, zero twists (as model.state())")
      .def_property(
          "body_q",
          [](py::object self) {
            auto& s = self.cast<PyState&>().state;
            return view_of(reinterpret_cast<double*>(s.body_q.data()),
                           {py::ssize_t(s.body_q.size()), 7}, self, true);
          },
          [](PyState& s, py::handle v) {
            auto a = as_doubles(v, "State.body_q", {py::ssize_t(s.state.body_q.size()), 7});
            copy_rows(a, reinterpret_cast<double*>(s.state.body_q.data()));
          },
          "(body_count, 7) float64: world pose of each body, x, y, z (m), qx, qy, qz, qw; a "
          "writable view of the state's memory (assigning an array copies into it)")
      .def_property(
          "body_qd",
          [](py::object self) {
            auto& s = self.cast<PyState&>().state;
            return view_of(reinterpret_cast<double*>(s.body_qd.data()),
                           {py::ssize_t(s.body_qd.size()), 6}, self, true);
          },
          [](PyState& s, py::handle v) {
            auto a = as_doubles(v, "State.body_qd", {py::ssize_t(s.state.body_qd.size()), 6});
            copy_rows(a, reinterpret_cast<double*>(s.state.body_qd.data()));
          },
          "(body_count, 6) float64: twist of each body in world coordinates, vx, vy, vz (m/s, "
          "the velocity of its centre of mass), wx, wy, wz (rad/s); a writable view of the "
          "state's memory (assigning an array copies into it)")
      .def_property(
          "joint_q", vector_get(&PyState::joint_q, state_of),
          vector_set(&PyState::joint_q, state_of, "State.joint_q"),
          "(joint_coord_count,) float64, as Newton's State.joint_q: a copy of the model's "
          "joint_q when the state is made, then what is written into it (a "
          "writable view; assigning an array copies into it). eval_fk reads the "
          "coordinates it is given: eval_fk(model, state.joint_q, state.joint_qd, state)")
      .def_property("joint_qd", vector_get(&PyState::joint_qd, state_of),
                    vector_set(&PyState::joint_qd, state_of, "State.joint_qd"),
                    "(joint_dof_count,) float64, as Newton's State.joint_qd: a copy of the model's "
                    "joint_qd when the state is made, then what is written into it (as joint_q)")
      .def(
          "copy", [](const PyState& s) { return PyState(s); }, "An independent copy")
      .def("__copy__", [](const PyState& s) { return PyState(s); })
      .def("__deepcopy__", [](const PyState& s, py::object) { return PyState(s); })
      .def("__repr__",
           [](const PyState& s) {
             return "<ikwb.State of " + std::to_string(s.state.body_q.size()) + " bodies>";
           })
      .def("__reduce__", [](const PyState& s) {
        const py::ssize_t n = py::ssize_t(s.state.body_q.size());
        py::array_t<double> q({n, py::ssize_t(7)}), qd({n, py::ssize_t(6)});
        std::copy_n(reinterpret_cast<const double*>(s.state.body_q.data()), 7 * n,
                    q.mutable_data());
        std::copy_n(reinterpret_cast<const double*>(s.state.body_qd.data()), 6 * n,
                    qd.mutable_data());
        return py::make_tuple(
            py::module_::import("ikwb").attr("_state_from_pickle"),
            py::make_tuple(q, qd, doubles_array(s.joint_q), doubles_array(s.joint_qd)));
      });

  // what pickles of Model and State call, through Python functions of the module: a pickle
  // names a callable by module and name, which a pybind11 function (its self a capsule) cannot
  // be under pickle protocols 0 and 1
  m.def(
      "_load_model",
      [](const std::string& path, bool floating_base, const std::vector<std::string>& package_paths,
         bool strict, const std::vector<std::string>& xacro_args) {
        return load_model(path, floating_base, package_paths, strict, xacro_args);
      },
      "A pickled Model: its file loaded again with the arguments it was loaded with");
  m.def(
      "_state_from_arrays",
      [](py::handle body_q, py::handle body_qd, py::handle joint_q, py::handle joint_qd) {
        auto q = as_doubles(body_q, "State pickle body_q", {-1, 7});
        const py::ssize_t n = q.shape(0);
        auto qd = as_doubles(body_qd, "State pickle body_qd", {n, 6});
        PyState s;
        s.state.body_q.resize(std::size_t(n));
        s.state.body_qd.resize(std::size_t(n));
        std::copy_n(q.data(), 7 * n, reinterpret_cast<double*>(s.state.body_q.data()));
        std::copy_n(qd.data(), 6 * n, reinterpret_cast<double*>(s.state.body_qd.data()));
        // (a pickle made before the state had them has none)
        for (auto [values, out] : {std::pair{joint_q, &s.joint_q}, {joint_qd, &s.joint_qd}})
          if (!values.is_none()) {
            auto a = as_doubles(values, "State pickle joint values", {-1});
            out->assign(a.data(), a.data() + a.shape(0));
          }
        return s;
      },
      "A pickled State: its body_q, body_qd, joint_q and joint_qd");
  py::exec(R"(
def _model_from_pickle(*args):
    return _load_model(*args)


def _state_from_pickle(body_q, body_qd, joint_q=None, joint_qd=None):
    return _state_from_arrays(body_q, body_qd, joint_q, joint_qd)
)",
           m.attr("__dict__"));

  m.def("eval_fk", &eval_fk_py, py::arg("model"), py::arg("joint_q"), py::arg("joint_qd"),
        py::arg("state"), py::arg("mask") = py::none(), py::arg("indices") = py::none(),
        py::arg("body_flag_filter") = int(kBodyAll), py::kw_only(),
        py::arg("joint_mask") = py::none(),
        "Forward kinematics into state.body_q / body_qd (newton.eval_fk). joint_q "
        "(joint_coord_count), joint_qd (joint_dof_count, or None: velocities untouched); mask "
        "(bool, articulation_count) or indices (ints) select articulations, not both; bodies "
        "not matching body_flag_filter keep their values; joint_mask (bool, joint_count): only "
        "selected joints update their child body, unselected ones leave its pose and velocity "
        "bit for bit. ValueError on wrong shapes or dtypes and on both filters.");
  m.def("eval_fk_batch", &eval_fk_batch_py, py::arg("model"), py::arg("joint_q"),
        py::arg("joint_qd") = py::none(), py::arg("body_q") = py::none(),
        py::arg("body_qd") = py::none(), py::arg("mask") = py::none(),
        py::arg("indices") = py::none(), py::arg("body_flag_filter") = int(kBodyAll), py::kw_only(),
        py::arg("joint_mask") = py::none(),
        "eval_fk over rows: joint_q (n x joint_coord_count), joint_qd (n x joint_dof_count or "
        "None). Writes body_q (n x body_count x 7) and body_qd (n x body_count x 6) in place "
        "when given (float64, C-contiguous), else into new arrays (identity poses, zero twists "
        "where nothing is written). Returns (body_q, body_qd or None). The GIL is released.");
  m.def("eval_ik", &eval_ik_py, py::arg("model"), py::arg("state"), py::arg("joint_q"),
        py::arg("joint_qd") = py::none(),
        "Joint coordinates (and velocities) from the state's body poses (and twists), written "
        "into joint_q (read too: revolute angles unwrap next to its values, within the limits "
        "where they can be) and joint_qd "
        "(float64 arrays, in place). Not a solver: the inverse of eval_fk.");
  m.def("eval_ik_batch", &eval_ik_batch_py, py::arg("model"), py::arg("body_q"), py::arg("joint_q"),
        py::arg("body_qd") = py::none(), py::arg("joint_qd") = py::none(),
        "eval_ik over rows: body_q (n x body_count x 7) into joint_q (n x joint_coord_count), "
        "body_qd (n x body_count x 6) into joint_qd (n x joint_dof_count).");
}

}  // namespace ikwb::python
