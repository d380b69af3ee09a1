// ikwb.Model, ikwb.State, eval_fk / eval_ik and their batched forms (newton.eval_fk's shape and
// semantics; engine/core/fk.hpp does the work).
#include "engine/core/fk.hpp"
#include "python/bindings.hpp"

namespace ikwb::python {

namespace {

static_assert(sizeof(Transform<double>) == 7 * sizeof(double), "body_q rows are 7 doubles");
static_assert(sizeof(Spatial<double>) == 6 * sizeof(double), "body_qd rows are 6 doubles");

struct PyState {
  State state;
};

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

py::array doubles_array(const std::vector<double>& v) {
  py::array_t<double> a(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// mask / indices / body_flag_filter / joint_mask as FkOptions (the vectors live in the caller)
struct FkFilters {
  std::vector<uint8_t> mask, joint_mask;
  std::vector<int> indices;
  FkOptions options;
  FkFilters(const py::object& m, const py::object& i, int flags, const py::object& jm,
            const std::string& caller) {
    if (!m.is_none()) mask = as_bools(m, caller + " mask"), options.mask = &mask;
    if (!i.is_none()) indices = as_ints(i, caller + " indices"), options.indices = &indices;
    if (!jm.is_none())
      joint_mask = as_bools(jm, caller + " joint_mask"), options.joint_mask = &joint_mask;
    options.body_flag_filter = flags;
  }
};

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
  eval_fk(m, qv, qdv, st.state, f.options);
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
  const double* qp = q.data();
  const double* qdp = vel ? qd.data() : nullptr;
  auto* bq = reinterpret_cast<Transform<double>*>(xq.mutable_data());
  auto* bqd = vel ? reinterpret_cast<Spatial<double>*>(xqd.mutable_data()) : nullptr;
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
  eval_ik(m, st.state, qv, joint_qd.is_none() ? nullptr : &qdv);
  std::copy(qv.begin(), qv.end(), q.mutable_data());
  if (!joint_qd.is_none()) std::copy(qdv.begin(), qdv.end(), qd.mutable_data());
}

void eval_ik_batch_py(const PyModel& pm, py::handle body_q, py::handle joint_q, py::handle body_qd,
                      py::handle joint_qd) {
  const Model& m = *pm.model;
  const std::string c = "eval_ik_batch";
  auto q = as_output(joint_q, c + " joint_q", {-1, m.coord_count});
  const py::ssize_t n = q.shape(0), nb = m.body_count;
  auto xq = as_doubles(body_q, c + " body_q", {n, nb, 7});
  const bool vel = !joint_qd.is_none();
  py::array_t<double, py::array::c_style> xqd, qd;
  if (vel) {
    if (body_qd.is_none()) throw py::value_error(c + ": joint_qd needs body_qd");
    xqd = as_doubles(body_qd, c + " body_qd", {n, nb, 6});
    qd = as_output(joint_qd, c + " joint_qd", {n, m.dof_count});
  }
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

template <class T>
py::array model_array(const py::object& self, const std::vector<T>& v, py::ssize_t n) {
  return view_of(v.data(), {n}, self, false);
}

}  // namespace

void bind_model_fk(py::module_& m) {
  py::enum_<BodyFlag>(m, "BodyFlags", py::arithmetic(), "Body flags (Model.body_flags)")
      .value("DYNAMIC", kBodyDynamic)
      .value("KINEMATIC", kBodyKinematic)
      .value("ALL", kBodyAll);
  py::enum_<JointType>(m, "JointType", "Joint types (Model.joint_type)")
      .value("FIXED", JointType::kFixed)
      .value("REVOLUTE", JointType::kRevolute)
      .value("CONTINUOUS", JointType::kContinuous)
      .value("PRISMATIC", JointType::kPrismatic)
      .value("BALL", JointType::kBall)
      .value("FREE", JointType::kFree)
      .value("PLANAR", JointType::kPlanar);

  py::class_<PyModel, std::shared_ptr<PyModel>> model(
      m, "Model",
      "An immutable robot model: bodies and joints in topological order (structure of arrays). "
      "Array attributes are read-only views of the C++ model.");
  model
      .def_static("from_urdf", &load_model, py::arg("path"), py::arg("floating_base") = false,
                  py::arg("package_paths") = std::vector<std::string>(), py::arg("strict") = false,
                  "Loads a URDF (also xacro or MJCF, or a shipped robot's name such as 'panda'). "
                  "floating_base attaches the root with a free joint (7 coords, 6 dofs). "
                  "Raises ikwb.ModelError (a ValueError) naming the file and the problem.")
      .def_property_readonly("body_count", [](const PyModel& p) { return p.model->body_count; })
      .def_property_readonly("joint_count", [](const PyModel& p) { return p.model->joint_count; })
      .def_property_readonly("joint_coord_count",
                             [](const PyModel& p) { return p.model->coord_count; })
      .def_property_readonly("joint_dof_count", [](const PyModel& p) { return p.model->dof_count; })
      .def_property_readonly("articulation_count",
                             [](const PyModel& p) { return p.model->articulation_count; })
      .def_property_readonly("joint_q_start",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_q_start, mm.joint_count + 1);
                             })
      .def_property_readonly("joint_qd_start",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_qd_start, mm.joint_count + 1);
                             })
      .def_property_readonly("joint_ancestor",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_ancestor, mm.joint_count);
                             })
      .def_property_readonly("joint_parent",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_parent, mm.joint_count);
                             })
      .def_property_readonly("joint_child",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_child, mm.joint_count);
                             })
      .def_property_readonly("joint_type",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_type, mm.joint_count);
                             })
      .def_property_readonly("joint_articulation",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.joint_articulation, mm.joint_count);
                             })
      .def_property_readonly("articulation_start",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.articulation_start,
                                                  mm.articulation_count + 1);
                             })
      .def_property_readonly("joint_limit_lower",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.dof_lower, mm.dof_count);
                             })
      .def_property_readonly("joint_limit_upper",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.dof_upper, mm.dof_count);
                             })
      .def_property_readonly("body_flags",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.body_flags, mm.body_count);
                             })
      .def_property_readonly("body_mass",
                             [](py::object self) {
                               const Model& mm = *self.cast<PyModel&>().model;
                               return model_array(self, mm.body_mass, mm.body_count);
                             })
      .def_property_readonly(
          "body_com",
          [](py::object self) {
            const Model& mm = *self.cast<PyModel&>().model;
            return view_of(reinterpret_cast<const double*>(mm.body_com.data()), {mm.body_count, 3},
                           self, false);
          },
          "Centre of mass of each body in its frame (body_count x 3)")
      .def_property_readonly("body_key", [](const PyModel& p) { return p.model->body_name; })
      .def_property_readonly("joint_key", [](const PyModel& p) { return p.model->joint_name; })
      .def_property_readonly("articulation_key",
                             [](const PyModel& p) { return p.model->articulation_name; })
      .def_property_readonly("name", [](const PyModel& p) { return p.model->name; })
      .def_property_readonly("source_path", [](const PyModel& p) { return p.model->source_path; })
      .def_property_readonly("warnings", [](const PyModel& p) { return p.warnings; })
      .def_property_readonly(
          "joint_q",
          [](const PyModel& p) { return doubles_array(p.model->neutral_configuration()); },
          "The neutral configuration (a new array): zero clamped into the limits, identity "
          "quaternions")
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
          "A joint_mask for eval_fk selecting `joint` and, with_descendants, its branch")
      .def(
          "state", [](const PyModel& p) { return PyState{State(*p.model)}; },
          "A new State: identity body poses, zero twists")
      .def("__repr__", [](const PyModel& p) {
        const Model& mm = *p.model;
        return "<ikwb.Model '" + mm.name + "': " + std::to_string(mm.body_count) + " bodies, " +
               std::to_string(mm.joint_count) + " joints, " + std::to_string(mm.coord_count) +
               " coords, " + std::to_string(mm.dof_count) + " dofs>";
      });

  py::class_<PyState>(m, "State",
                      "Body state written by eval_fk: body_q (body_count x 7: position, then "
                      "quaternion x, y, z, w) and body_qd (body_count x 6: v_com_world, "
                      "omega_world). Both are writable views of the state's own memory.")
      .def(py::init([](const PyModel& p) { return PyState{State(*p.model)}; }), py::arg("model"))
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
          })
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
          })
      .def(
          "copy", [](const PyState& s) { return PyState{s.state}; }, "An independent copy");

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
        "into joint_q (read too: revolute angles unwrap next to its values) and joint_qd "
        "(float64 arrays, in place). Not a solver: the inverse of eval_fk.");
  m.def("eval_ik_batch", &eval_ik_batch_py, py::arg("model"), py::arg("body_q"), py::arg("joint_q"),
        py::arg("body_qd") = py::none(), py::arg("joint_qd") = py::none(),
        "eval_ik over rows: body_q (n x body_count x 7) into joint_q (n x joint_coord_count), "
        "body_qd (n x body_count x 6) into joint_qd (n x joint_dof_count).");
}

}  // namespace ikwb::python
