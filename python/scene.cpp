// ikwb.load_scene and Scene.solve: a workbench scene (robot, objectives, targets, solver
// settings) solved for arrays of targets, as `ikwb solve --scene SCENE --targets T.csv` does.
#include <pybind11/eval.h>

#include <cmath>
#include <filesystem>

#include "engine/core/objective_kinds.hpp"
#include "engine/core/scene.hpp"
#include "python/bindings.hpp"
#include "solver/scene_problem.hpp"
#include "solver/settings.hpp"

namespace ikwb::python {

namespace {

struct PyScene {
  std::string path;
  std::string absolute_path;               // path made absolute when it was loaded (pickles)
  std::vector<std::string> package_paths;  // load_scene's own (the scene's come with the file)
  Scene scene;
  std::shared_ptr<PyModel> model;
  SceneSetup setup;
  SolverSettings settings;     // the batch defaults of `ikwb solve`, then the scene's
  bool sampler_named = false;  // the scene's solver names its sampler (default_seed_sampler)
  std::vector<std::string> warnings;
};

PyScene load_scene_py(const std::string& path, const std::vector<std::string>& package_paths) {
  PyScene s;
  s.path = path;
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  s.absolute_path = ec ? path : abs.lexically_normal().string();
  s.package_paths = package_paths;
  s.scene = load_scene(path);
  std::vector<std::string> paths = s.scene.package_paths;
  paths.insert(paths.end(), package_paths.begin(), package_paths.end());
  try {
    s.model = load_model(s.scene.robot, s.scene.floating_base, paths, false, s.scene.xacro_args);
  } catch (const ModelError& e) {
    // which file asked for the robot: a scene's robot path is read relative to the scene
    throw ModelError(path + ": robot \"" + s.scene.robot + "\": " + e.what());
  }
  s.setup = resolve_scene(*s.model->model, s.scene);
  // all the scene asks or nothing, as `ikwb solve --scene`
  require_solvable_scene(*s.model->model, s.scene, s.setup, path, "ikwb.load_scene");
  s.settings = batch_solve_settings();  // as `ikwb solve --scene`
  s.warnings = s.scene.warnings;
  s.warnings.insert(s.warnings.end(), s.model->warnings.begin(), s.model->warnings.end());
  s.warnings.insert(s.warnings.end(), s.setup.warnings.begin(), s.setup.warnings.end());
  apply_solver_json(s.scene.solver, s.settings, s.warnings);
  // as `ikwb solve --scene`: a workbench's per-frame settings lifted to a batch solve's
  s.sampler_named = names_sampler(s.scene.solver);
  default_seed_sampler(s.settings, s.sampler_named);
  if (s.settings.prefer_closest && s.settings.n_seeds > 1)
    s.warnings.push_back(std::string(kPreferClosestLifted) +
                         " (Scene.solve(..., prefer_closest=True) keeps it; sequential=True does)");
  const std::vector<std::string> lifted = lift_per_frame_settings(s.settings);
  if (!lifted.empty()) {
    std::string list;
    for (const std::string& l : lifted) list += (list.empty() ? "" : ", ") + l;
    s.warnings.push_back(
        "the scene's solver settings are below a batch solve's (a workbench's "
        "are per frame); solving with " +
        list + " (Scene.solve(..., iterations=N) and the others set them exactly)");
  }
  return s;
}

// which coordinates of a target a column group sets
struct TargetArray {
  std::string name;             // the dict's key, for messages
  std::vector<int> objectives;  // every objective of that name
  py::array_t<double, py::array::c_style> values;
  bool position = false, rotation = false;
};

std::vector<TargetArray> read_targets(const PyScene& s, const py::dict& targets, py::ssize_t* n) {
  std::vector<TargetArray> out;
  *n = -1;
  std::string names;
  for (const PlacedObjective& p : s.setup.objectives)
    if (p.objective.has_target()) names += (names.empty() ? "'" : ", '") + p.objective.name + "'";
  for (auto item : targets) {
    const std::string name = py::str(item.first);
    const std::string what = "Scene.solve targets['" + name + "']";
    TargetArray t;
    t.name = name;
    bool known = false;
    for (int i = 0; i < int(s.setup.objectives.size()); ++i) {
      const Objective& o = s.setup.objectives[i].objective;
      if (o.name != name) continue;
      known = true;
      if (!o.has_target())
        throw py::value_error(what + ": objective " + std::to_string(i) + " (" +
                              objective_kind(o.params.type).name + ") has no target" +
                              (o.params.link_b >= 0 ? ": it follows link_b" : ""));
      t.objectives.push_back(i);
    }
    if (t.objectives.size() > 1)
      throw py::value_error(what + ": " + std::to_string(t.objectives.size()) +
                            " objectives are named '" + name +
                            "' (as `ikwb solve` refuses a "
                            "targets column of such a name)");
    if (!known)
      throw py::value_error(what +
                            ": no objective of that name; objectives with a target: " + names);
    const std::string shapes =
        ": expected shape (n, 3) positions, (n, 4) quaternions x, y, z, w or (n, 7) poses, got ";
    py::array given = py::array::ensure(item.second);
    const char kind = given ? given.dtype().kind() : 'O';
    if (kind != 'f' && kind != 'i' && kind != 'u')
      throw py::value_error(
          what + ": expected an array of numbers of shape (n, 3), (n, 4) or (n, 7), got " +
          std::string(py::str(py::type::handle_of(item.second).attr("__name__"))) +
          (given ? " of " + std::string(py::str(given.dtype())) : std::string()));
    if (given.ndim() != 2) throw py::value_error(what + shapes + shape_text(given));
    t.values = as_doubles(item.second, what, {-1, -1});
    const py::ssize_t cols = t.values.shape(1);
    if (cols != 3 && cols != 4 && cols != 7)
      throw py::value_error(what + shapes + shape_text(t.values));
    t.position = cols != 4, t.rotation = cols != 3;
    for (int i : t.objectives) {
      const ObjectiveKind& k = objective_kind(s.setup.objectives[i].objective.params.type);
      if (t.rotation && !k.target_orientation())
        throw py::value_error(what + ": a " + k.name +
                              " objective's target is a point (3 columns)");
      if (t.position && !k.target_position())
        throw py::value_error(what + ": a " + k.name +
                              " objective's target is an orientation "
                              "(4 columns)");
    }
    if (*n >= 0 && t.values.shape(0) != *n)
      throw py::value_error(what + ": " + std::to_string(t.values.shape(0)) +
                            " rows, other targets have " + std::to_string(*n));
    *n = t.values.shape(0);
    out.push_back(std::move(t));
  }
  return out;
}

py::dict solve_py(const PyScene& s, py::object targets, py::object joint_q, bool sequential,
                  py::kwargs kwargs) {
  const Model& m = *s.model->model;
  SolverSettings settings = s.settings;
  apply_settings(kwargs, settings, "Scene.solve");
  lift_prefer_closest(settings, sequential, kwargs.contains("prefer_closest"));
  settings.turn_over_limits = !sequential;
  default_seed_sampler(settings, s.sampler_named || kwargs.contains("sampler"));
  py::ssize_t n = 1;
  std::vector<TargetArray> arrays;
  if (!targets.is_none()) {
    if (!py::isinstance<py::dict>(targets))
      throw py::value_error("Scene.solve targets: expected a dict of objective name -> array");
    // an empty selection is not "the scene as it is" (targets=None): it solved one row of the
    // scene's targets
    if (py::len(targets) == 0)
      throw py::value_error(
          "Scene.solve targets: the dict is empty; give an array per objective to move, or "
          "targets=None for one problem, the scene as it is");
    arrays = read_targets(s, targets.cast<py::dict>(), &n);
    if (n < 0) n = 1;
  }
  // per-problem targets: the scene's, with the arrays' columns over them
  const int count = int(s.setup.objectives.size());
  std::vector<Transform<double>> x(std::size_t(n) * count);
  for (py::ssize_t r = 0; r < n; ++r)
    for (int i = 0; i < count; ++i) x[r * count + i] = s.setup.objectives[i].target;
  // a row whose values cannot be a target (NaN or inf, a quaternion not unit, beyond 1e6 m: a
  // motion-capture gap) is not solved, as `ikwb solve` skips such a line; the others are
  std::vector<std::string> skipped(static_cast<std::size_t>(n));
  for (const TargetArray& t : arrays) {
    const py::ssize_t cols = t.values.shape(1);
    for (py::ssize_t r = 0; r < n; ++r) {
      if (!skipped[r].empty()) continue;
      const double* d = t.values.data() + r * cols;
      const std::string row = "Scene.solve targets['" + t.name + "'] row " + std::to_string(r);
      try {
        for (int i : t.objectives) {
          Transform<double>& dst = x[r * count + i];
          if (t.position) dst.p = target_position(d, row);
          if (t.rotation) dst.q = unit_quat(t.position ? d + 3 : d, row);
        }
      } catch (const py::value_error& e) {
        skipped[r] = e.what();
      }
    }
  }
  std::vector<py::ssize_t> rows;  // the rows that are solved
  for (py::ssize_t r = 0; r < n; ++r)
    if (skipped[r].empty()) rows.push_back(r);
  // no rows at all (an empty batch) is an empty result
  if (rows.empty() && n > 0) throw py::value_error(skipped[0]);
  // where the rows start: the scene's configuration, joint_q's, or (n, nq) one per row
  std::vector<double> q0 = s.setup.q;
  bool per_row = false;
  if (!joint_q.is_none()) {
    py::array given = py::array::ensure(joint_q);
    per_row = given && given.ndim() == 2;
    if (per_row && sequential)
      throw py::value_error(
          "Scene.solve joint_q: sequential starts each row from the answer to the row before; "
          "give one configuration, shape (" +
          std::to_string(m.coord_count) + ",), for the first");
    auto q = per_row ? as_doubles(joint_q, "Scene.solve joint_q", {n, m.coord_count})
                     : as_doubles(joint_q, "Scene.solve joint_q", {m.coord_count});
    check_joint_values(m, q.data(), per_row ? n : 1, true, per_row, "Scene.solve joint_q");
    q0.assign(q.data(), q.data() + q.size());
  }
  std::string note;
  auto solver = make_solver(settings.backend, &note);
  py::array_t<double> q_out({n, py::ssize_t(m.coord_count)});
  py::array_t<bool> converged(n), skipped_out(n);
  py::array_t<double> pos_err(n), rot_err(n), violation(n);
  py::array_t<int> iterations(n);
  double* qo = q_out.mutable_data();
  bool* co = converged.mutable_data();
  double *pe = pos_err.mutable_data(), *re = rot_err.mutable_data(), *vi = violation.mutable_data();
  int* it = iterations.mutable_data();
  const std::size_t nq = std::size_t(m.coord_count);
  for (py::ssize_t r = 0; r < n; ++r) {
    skipped_out.mutable_data()[r] = !skipped[r].empty();
    std::fill(qo + r * nq, qo + (r + 1) * nq, NAN);
    co[r] = false;
    pe[r] = re[r] = vi[r] = NAN;
    it[r] = 0;
  }
  double seconds = 0;
  {
    py::gil_scoped_release release;
    // as `ikwb solve`; sequential: one row at a time, each from the answer before it. The
    // chunks start small and double while one takes under kChunkSeconds (up to 4096 rows), so
    // that Ctrl-C, checked between them, stops a slow batch (a whole body: a few hundred rows
    // a second) soon, and a fast one still solves thousands of rows a call
    constexpr double kChunkSeconds = 0.1;
    py::ssize_t chunk = sequential ? 1 : 16;
    SolveResult res;
    ProblemResult previous;       // sequential: the row before's
    std::vector<double> back_in;  // sequential: the last converged row's answer
    int compromise_rows = 0;
    std::shared_ptr<const Model> model = s.model->model;
    std::vector<double> start = q0;
    const py::ssize_t total = py::ssize_t(rows.size());
    for (py::ssize_t begin = 0, k = 0; begin < total; begin += k) {
      k = std::min(chunk, total - begin);
      if (per_row) {
        start.resize(std::size_t(k) * nq);
        for (int r = 0; r < k; ++r)
          std::copy_n(q0.begin() + std::ptrdiff_t(rows[begin + r] * nq), nq,
                      start.begin() + std::ptrdiff_t(r * nq));
      }
      IkProblem problem = make_problem(model, s.setup.objectives, int(k), &s.setup.collision);
      apply_joint_settings(s.setup, problem);
      for (int i = 0; i < count; ++i) {
        if (!s.setup.objectives[i].objective.has_target()) continue;
        std::vector<Transform<double>> ti(k);
        for (int r = 0; r < k; ++r) ti[r] = x[rows[begin + r] * count + i];
        problem.set_target_poses(i, ti);
      }
      if (sequential && begin > 0)  // from the answer before, moved where the targets are far
        solve_from_previous(*solver, problem, settings, starts_near_targets(problem, start),
                            previous, compromise_rows, res, false, &back_in);
      else if (per_row)  // the caller's starts, row by row
        solver->solve(problem, settings, start, res);
      else  // one start for every row: a floating robot's rows whose targets are far start near
        solver->solve(problem, settings, starts_near_targets(problem, start), res);
      seconds += res.solve_seconds;
      if (sequential) {
        start = res.problems[0].q;
        previous = res.problems[0];
        if (previous.converged) back_in = start;
      }
      for (int r = 0; r < k; ++r) {
        const ProblemResult& p = res.problems[r];
        const py::ssize_t row = rows[begin + r];
        std::copy(p.q.begin(), p.q.end(), qo + row * m.coord_count);
        co[row] = p.converged;
        pe[row] = p.position_error;
        re[row] = p.rotation_error;
        vi[row] = p.constraint_violation;
        it[row] = p.iterations;
      }
      {
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      }
      if (!sequential && res.solve_seconds < kChunkSeconds)
        chunk = std::min<py::ssize_t>(chunk * 2, 4096);
    }
  }
  if (rows.size() < std::size_t(n)) {
    py::ssize_t first = 0;
    while (skipped[first].empty()) ++first;
    const std::string text = "Scene.solve: " + std::to_string(n - py::ssize_t(rows.size())) +
                             " of " + std::to_string(n) +
                             " target rows not solved (their q and errors are NaN, 'skipped' "
                             "marks them); the first: " +
                             skipped[first];
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) throw py::error_already_set();
  }
  py::dict out;
  out["q"] = q_out;
  out["converged"] = converged;
  out["position_error"] = pos_err;
  out["rotation_error"] = rot_err;
  out["constraint_violation"] = violation;
  out["iterations"] = iterations;
  out["skipped"] = skipped_out;
  out["solve_seconds"] = seconds;
  // the backend that ran, and why it is not the one asked for (CUDA without a device)
  out["backend"] = std::string(to_string(solver->backend()));
  out["backend_note"] = note;
  return out;
}

// a read-only copy of v, a 1-D array
py::array read_only_copy(const std::vector<double>& v) {
  py::array_t<double> a(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return read_only(a);
}

py::object json_to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

}  // namespace

void bind_scene(py::module_& m) {
  py::class_<PyScene>(m, "Scene",
                      "A workbench scene on its loaded robot: objectives (with names and "
                      "targets), configuration and solver settings")
      // immutable: a copy is the same scene; a pickle is how to load it (the file and the
      // robot are read again where it is unpickled, e.g. by a multiprocessing worker: its path
      // as it was when loaded, made absolute)
      .def("__repr__",
           [](const PyScene& s) {
             return "<ikwb.Scene '" + s.path + "': robot '" + s.model->model->name + "', " +
                    std::to_string(s.setup.objectives.size()) + " objectives>";
           })
      .def("__copy__", [](py::object self) { return self; })
      .def("__deepcopy__", [](py::object self, py::object) { return self; })
      .def("__reduce__",
           [](const PyScene& s) {
             return py::make_tuple(py::module_::import("ikwb").attr("_scene_from_pickle"),
                                   py::make_tuple(s.absolute_path, s.package_paths));
           })
      .def_property_readonly(
          "path", [](const PyScene& s) { return s.path; }, "The scene file it was loaded from")
      .def_property_readonly(
          "robot", [](const PyScene& s) { return s.scene.robot; },
          "The robot as the scene names it (a path or a shipped robot's name)")
      .def_property_readonly(
          "model", [](const PyScene& s) { return s.model; }, "The scene's robot, an ikwb.Model")
      .def_property_readonly(
          "warnings", [](const PyScene& s) { return s.warnings; },
          "What loading the scene, its robot and its objectives warned about (a list)")
      .def_property_readonly(
          "joint_q", [](const PyScene& s) { return read_only_copy(s.setup.q); },
          "The scene's configuration (where every problem starts), a read-only copy")
      .def_property_readonly(
          "objective_names",
          [](const PyScene& s) {
            std::vector<std::string> names;
            for (const auto& p : s.setup.objectives) names.push_back(p.objective.name);
            return names;
          },
          "The objectives' names, in order (the keys of Scene.solve's targets)")
      .def_property_readonly(
          "objectives",
          [](const PyScene& s) {
            py::list l;
            for (const auto& p : s.setup.objectives) {
              nlohmann::json j = scene_objective_to_json(objective_to_scene(*s.model->model, p));
              // a target that follows link_b has no world target of its own: the record's is
              // none that Scene.solve takes, nor what the objective reads
              if (p.objective.params.link_b >= 0 &&
                  objective_kind(p.objective.params.type).has(kFieldTargetLink))
                j.erase("target");
              l.append(json_to_python(j));
            }
            return l;
          },
          "Each objective as its scene record (a dict; targets written out, but for one that "
          "follows link_b, which has none of its own)")
      .def_property_readonly(
          "joint_limit_lower", [](const PyScene& s) { return read_only_copy(s.setup.dof_lower); },
          "The lower joint limits a solve holds, per dof (the scene's joint_limits over the "
          "robot file's; a read-only copy)")
      .def_property_readonly(
          "joint_limit_upper", [](const PyScene& s) { return read_only_copy(s.setup.dof_upper); },
          "The upper joint limits a solve holds, per dof (as joint_limit_lower)")
      .def_property_readonly(
          "settings", [](const PyScene& s) { return settings_dict(s.settings); },
          "The solver settings a solve uses: ikwb solve's batch defaults, "
          "then the scene's")
      .def("solve", &solve_py, py::arg("targets") = py::none(), py::arg("joint_q") = py::none(),
           py::arg("sequential") = false,
           "Solves the scene once per row of the target arrays: targets maps an objective's name "
           "to (n, 3) positions, (n, 4) quaternions x, y, z, w or (n, 7) poses; objectives not "
           "named keep the scene's target. Every problem starts at joint_q (default: the "
           "scene's; shape (n, joint_coord_count): one start per row). sequential=True solves "
           "the rows in order, each from the answer to the row before (a trajectory that stays "
           "on one IK branch where the targets allow; one row per solver call). Keyword "
           "arguments override solver settings by scene key. Returns a dict: "
           "q (n, joint_coord_count), converged, position_error, rotation_error (largest over "
           "the enabled task objectives), constraint_violation (the largest over the hard "
           "objectives, 0 without any: a row whose soft target is out of reach is not converged "
           "either, this says whether the hard ones hold), iterations, skipped (rows whose "
           "targets cannot be "
           "used: NaN or inf, a quaternion not unit, beyond 1e6 m; not solved, their q and "
           "errors NaN, with a UserWarning; ValueError when every row is such), solve_seconds, "
           "backend (the one that ran) and backend_note (why it is not the one asked for, or "
           "empty). The GIL is released; Ctrl-C stops a batch between its chunks.");
  m.def(
      "_load_scene_again",
      [](const std::string& path, const std::vector<std::string>& package_paths) {
        return load_scene_py(path, package_paths);
      },
      "A pickled Scene: its file loaded again with the package paths it was loaded with");
  py::exec(R"(
def _scene_from_pickle(path, package_paths):
    return _load_scene_again(path, package_paths)
)",
           m.attr("__dict__"));
  m.def(
      "load_scene",
      [](const std::filesystem::path& path,
         const std::vector<std::filesystem::path>& package_paths) {
        return load_scene_py(path.string(), path_texts(package_paths));
      },
      py::arg("path"), py::arg("package_paths") = std::vector<std::filesystem::path>(),
      "Reads a scene file and loads its robot; ikwb.SceneError / ikwb.ModelError (ValueErrors) "
      "name the file and the problem");
}

}  // namespace ikwb::python
