// The `ikwb` Python module: exceptions, numpy and settings conversions shared by the areas, and
// the module itself (model and FK, ikwb.ik, the adam-shaped InverseKinematics, scenes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <type_traits>

#include <pybind11/eval.h>
#include <nlohmann/json.hpp>

#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/spatial.hpp"
#include "python/bindings.hpp"
#include "solver/settings.hpp"
#include "solver/solver.hpp"
#if defined(IKWB_HAVE_CUDA)
#include "kernels/cuda_backend.hpp"
#endif

namespace ikwb::python {

std::shared_ptr<PyModel> load_model(const std::string& path, bool floating_base,
                                    const std::vector<std::string>& package_paths, bool strict,
                                    const std::vector<std::string>& xacro_args) {
  UrdfOptions options;
  options.floating_base = floating_base;
  options.package_paths = package_paths;
  options.strict = strict;
  options.xacro_args = xacro_args;
  // kinematics only: mesh files are resolved, not read; those that do not resolve are warned
  // of, as `ikwb info` does (Model.warnings said nothing of them)
  options.load_meshes = false;
  options.warn_unread_meshes = true;
  // the loader's messages name the command line's options: here they are arguments
  auto in_python_terms = [](std::string text) {
    for (const auto& [option, argument] :
         {std::pair<std::string, std::string>{"--package-path", "package_paths="},
          {"--floating-base: ", "with floating_base=True, "},
          {"--floating-base", "floating_base=True"}})
      for (std::size_t at = text.find(option); at != std::string::npos;
           at = text.find(option, at + argument.size()))
        text.replace(at, option.size(), argument);
    return text;
  };
  const std::string file = resolve_robot(path);
  LoadResult r;
  try {
    r = load_robot_file(file, options);
  } catch (const ModelError& e) {
    throw ModelError(in_python_terms(e.what()));
  }
  for (std::string& w : r.warnings) w = in_python_terms(w);
  // a search folder that is not there is said, as the command line says it
  for (const std::string& p : package_paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(p, ec))
      r.warnings.push_back("package_paths: '" + p + "': no such folder");
  }
  // absolute, so that a pickle loads the same files from any working folder
  std::vector<std::string> absolute_paths;
  for (const std::string& p : package_paths)
    absolute_paths.push_back(std::filesystem::absolute(p).string());
  auto model = std::make_shared<PyModel>();
  model->model = r.model;
  model->warnings = r.warnings;
  model->path = std::filesystem::absolute(file).string();
  model->floating_base = floating_base;
  model->package_paths = absolute_paths;
  model->strict = strict;
  model->xacro_args = xacro_args;
  return model;
}

std::vector<std::string> path_texts(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::string> out;
  for (const std::filesystem::path& p : paths) out.push_back(p.string());
  return out;
}

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

namespace {

std::string wanted_shape(const std::vector<py::ssize_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i] < 0 ? std::string("n") : std::to_string(shape[i]));
  return s + (shape.size() == 1 ? ",)" : ")");
}

py::array numpy_array(py::handle obj, const std::string& what) {
  py::array a = py::reinterpret_steal<py::array>(
      py::detail::npy_api::get().PyArray_FromAny_(obj.ptr(), nullptr, 0, 0, 0, nullptr));
  if (!a) {
    PyErr_Clear();
    throw py::value_error(what + ": expected an array, got " +
                          std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  return a;
}

void check_shape(const py::array& a, const std::string& what,
                 const std::vector<py::ssize_t>& shape) {
  bool ok = a.ndim() == py::ssize_t(shape.size());
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = shape[i] < 0 || a.shape(i) == shape[i];
  if (!ok)
    throw py::value_error(what + ": expected shape " + wanted_shape(shape) + ", got " +
                          shape_text(a));
}

}  // namespace

py::array_t<double, py::array::c_style> as_doubles(py::handle obj, const std::string& what,
                                                   const std::vector<py::ssize_t>& shape) {
  py::array a = numpy_array(obj, what);
  char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw py::value_error(what + ": expected numbers (float64), got dtype " +
                          std::string(py::str(a.dtype())));
  check_shape(a, what, shape);
  auto out = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!out) {
    // the contiguous float64 copy could not be made (pybind11 clears numpy's error): a huge
    // broadcast view, for one
    char gb[32];
    std::snprintf(gb, sizeof gb, "%.3g", double(a.size()) * sizeof(double) / 1e9);
    const std::string msg = what + ": a contiguous float64 copy of " + std::to_string(a.size()) +
                            " values (" + gb + " GB) could not be made";
    PyErr_SetString(PyExc_MemoryError, msg.c_str());
    throw py::error_already_set();
  }
  return out;
}

py::array_t<double, py::array::c_style> as_output(py::handle obj, const std::string& what,
                                                  const std::vector<py::ssize_t>& shape) {
  if (!py::isinstance<py::array>(obj))
    throw py::value_error(what + ": expected a writable float64 numpy array, got " +
                          std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  py::array a = py::reinterpret_borrow<py::array>(obj);
  if (!a.dtype().is(py::dtype::of<double>()))
    throw py::value_error(what + ": expected dtype float64, got " +
                          std::string(py::str(a.dtype())));
  check_shape(a, what, shape);
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(what + ": expected a C-contiguous array (it is written in place)");
  if (!a.writeable()) throw py::value_error(what + ": the array is read-only");
  return py::reinterpret_borrow<py::array_t<double, py::array::c_style>>(a);
}

std::vector<uint8_t> as_bools(py::handle obj, const std::string& what) {
  py::array a = numpy_array(obj, what);
  if (a.dtype().kind() != 'b')
    throw py::value_error(what + ": expected dtype bool, got " + std::string(py::str(a.dtype())));
  if (a.ndim() != 1)
    throw py::value_error(what + ": expected a 1-D array, got shape " + shape_text(a));
  auto b = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<uint8_t> out(b.size());
  for (py::ssize_t i = 0; i < b.size(); ++i) out[i] = b.data()[i] ? 1 : 0;
  return out;
}

std::vector<int> as_ints(py::handle obj, const std::string& what) {
  py::array a = numpy_array(obj, what);
  if (a.ndim() != 1)
    throw py::value_error(what + ": expected a 1-D array, got shape " + shape_text(a));
  if (a.size() == 0) return {};  // [] reads as float64
  char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw py::value_error(what + ": expected integers, got dtype " +
                          std::string(py::str(a.dtype())));
  // unsigned values read as unsigned, so that one beyond INT64_MAX is reported as given
  auto read = [&](auto tag) {
    using T = decltype(tag);
    auto b = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
    std::vector<int> out(b.size());
    for (py::ssize_t i = 0; i < b.size(); ++i) {
      T v = b.data()[i];
      if (v > T(INT32_MAX) || (std::is_signed<T>::value && v < T(INT32_MIN)))
        throw py::value_error(what + ": " + std::to_string(v) + " is out of range");
      out[i] = int(v);
    }
    return out;
  };
  return kind == 'u' ? read(0ULL) : read(0LL);
}

namespace {

// a Python int as JSON: signed within 64 bits, else unsigned (rng_seed takes up to 2^64 - 1);
// beyond that a ValueError naming `what` and what it expects
nlohmann::json int_json(py::handle v, const std::string& what, const std::string& expects) {
  const long long s = PyLong_AsLongLong(v.ptr());
  if (!(s == -1 && PyErr_Occurred())) return s;
  PyErr_Clear();
  const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
  PyErr_Clear();
  throw py::value_error(what + ": " + std::string(py::str(v)) + " is out of range; expects " +
                        expects);
}

}  // namespace

void apply_settings(const py::dict& values, SolverSettings& settings, const std::string& what,
                    const std::map<std::string, std::string>& argument_names) {
  for (auto item : values) {
    const std::string key = py::str(item.first);
    const SettingInfo* info = find_setting(key);
    const auto argument = argument_names.find(key);
    const std::string label = argument == argument_names.end()
                                  ? "solver setting '" + key + "'"
                                  : argument->second + " (solver setting '" + key + "')";
    if (!info) {
      std::string keys;
      for (const SettingInfo& i : solver_settings_table())
        keys += (keys.empty() ? "" : ", ") + std::string(i.key);
      throw py::value_error(what + ": unknown solver setting '" + key + "'; settings are: " + keys);
    }
    py::handle v = item.second;
    nlohmann::json j;
    // numpy's scalars (np.int64, np.float32, np.bool_) as Python's bool, int and float
    const bool numpy_bool =
        py::isinstance(v, py::module_::import("numpy").attr("bool_").cast<py::object>());
    if (py::isinstance<py::bool_>(v) || numpy_bool)
      j = bool(PyObject_IsTrue(v.ptr()));
    else if (py::hasattr(v, "name") && py::hasattr(v, "value"))  // one of the module's enums
      j = py::str(v.attr("name")).cast<std::string>();
    else if (PyIndex_Check(v.ptr()))
      j = int_json(py::int_(py::reinterpret_borrow<py::object>(v)), what + ": " + label,
                   info->expects());
    else if (py::isinstance<py::str>(v))
      j = v.cast<std::string>();
    else if (py::hasattr(v, "__float__"))
      j = py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
    else
      throw py::value_error(what + ": " + label + " expects " + info->expects());
    std::string error;
    SolverSettings s = settings;
    if (j.is_string() && !set_setting_json(*info, j, s, nullptr)) {
      // enum names as the Python enums spell them (GAUSS, LM): the table's lower-case names
      std::string lower = j.get<std::string>();
      for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "gauss") lower = "gaussian";
      j = lower;
    }
    if (!set_setting_json(*info, j, s, &error))
      throw py::value_error(what + ": " + label + ": " + error);
    settings = s;
  }
}

py::dict settings_dict(const SolverSettings& settings) {
  py::module_ json = py::module_::import("json");
  return json.attr("loads")(solver_settings_json(settings).dump());
}

std::string number_text(double v) {
  return py::repr(py::float_(v));
}

Quat<double> unit_quat(const double* v, const std::string& what) {
  Quat<double> q{v[0], v[1], v[2], v[3]};
  double n = quat_norm(q);
  if (!std::isfinite(n) || std::fabs(n - 1.0) > 1e-3)
    throw py::value_error(what + ": quaternion (x, y, z, w) is not unit (norm " +
                          std::to_string(n) + ")");
  return normalize(q);
}

Vec3<double> target_position(const double* p, const std::string& what) {
  const std::string given =
      ", got [" + number_text(p[0]) + ", " + number_text(p[1]) + ", " + number_text(p[2]) + "]";
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(p[k])) throw py::value_error(what + " must be finite" + given);
    if (std::fabs(p[k]) > kMaxLength)
      throw py::value_error(what + " must be within 1e6 m of the origin per axis" + given);
  }
  return {p[0], p[1], p[2]};
}

py::array newton_array(const py::array& a) {
  static const py::handle array_type =
      py::object(py::module_::import("ikwb").attr("Array")).release();
  return a.attr("view")(array_type);
}

py::array read_only(py::array a) {
  a.attr("flags").attr("writeable") = false;
  return a;
}

Quat<double> quat_from_matrix(const double* r, const std::string& what) {
  // r row-major; check R^T R = I and det R = 1
  double worst = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double d = 0;
      for (int k = 0; k < 3; ++k) d += r[k * 3 + i] * r[k * 3 + j];
      worst = std::max(worst, std::fabs(d - (i == j ? 1.0 : 0.0)));
    }
  double det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) +
               r[2] * (r[3] * r[7] - r[4] * r[6]);
  // within 1e-3, as a quaternion's norm: a product of a few float32 rotations is 1.6e-6 off
  // (refused at random in a long loop when this was 1e-6); the quaternion is normalised
  if (!(worst <= 1e-3) || !(det > 0))
    throw py::value_error(what + ": not a rotation matrix (orthonormal within 1e-3, det +1)");
  Quat<double> q;
  double tr = r[0] + r[4] + r[8];
  if (tr > 0) {
    double s = 2 * std::sqrt(tr + 1);
    q = {(r[7] - r[5]) / s, (r[2] - r[6]) / s, (r[3] - r[1]) / s, s / 4};
  } else if (r[0] > r[4] && r[0] > r[8]) {
    double s = 2 * std::sqrt(1 + r[0] - r[4] - r[8]);
    q = {s / 4, (r[1] + r[3]) / s, (r[2] + r[6]) / s, (r[7] - r[5]) / s};
  } else if (r[4] > r[8]) {
    double s = 2 * std::sqrt(1 + r[4] - r[0] - r[8]);
    q = {(r[1] + r[3]) / s, s / 4, (r[5] + r[7]) / s, (r[2] - r[6]) / s};
  } else {
    double s = 2 * std::sqrt(1 + r[8] - r[0] - r[4]);
    q = {(r[2] + r[6]) / s, (r[5] + r[7]) / s, s / 4, (r[3] - r[1]) / s};
  }
  return normalize(q);
}

py::array matrix_of(const Transform<double>& x) {
  py::array_t<double> h({4, 4});
  double* d = h.mutable_data();
  double r[9];
  quat_to_matrix(x.q, r);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) d[i * 4 + j] = r[i * 3 + j];
    d[i * 4 + 3] = i == 0 ? x.p.x : (i == 1 ? x.p.y : x.p.z);
  }
  d[12] = d[13] = d[14] = 0;
  d[15] = 1;
  return h;
}

std::string row_text(py::ssize_t row, bool batch) {
  return batch ? "row " + std::to_string(row) + ", " : "";
}

int coord_joint(const Model& m, int c) {
  auto it = std::upper_bound(m.joint_q_start.begin(), m.joint_q_start.end(), c);
  return int(it - m.joint_q_start.begin()) - 1;
}

void check_joint_values(const Model& m, const double* v, py::ssize_t rows, bool coords, bool batch,
                        const std::string& what) {
  const int n = coords ? m.coord_count : m.dof_count;
  for (py::ssize_t i = 0; i < rows * n; ++i) {
    if (std::isfinite(v[i])) continue;
    const int c = int(i % n);
    const int j = coords ? coord_joint(m, c) : m.dof_joint[c];
    throw py::value_error(what + ": " + row_text(i / n, batch) + "column " + std::to_string(c) +
                          " (joint '" + m.joint_name[j] + "') is " + number_text(v[i]) +
                          "; values must be finite");
  }
  for (int j = 0; coords && j < m.joint_count; ++j) {
    const JointType t = JointType(m.joint_type[j]);
    if (m.joint_mimic[j] >= 0 || (t != JointType::kBall && t != JointType::kFree)) continue;
    const int c = m.joint_q_start[j] + (t == JointType::kFree ? 3 : 0);
    for (py::ssize_t r = 0; r < rows; ++r) {
      const double* x = v + r * n + c;
      if (!(quat_norm(Quat<double>{x[0], x[1], x[2], x[3]}) > 1e-9))
        throw py::value_error(what + ": " + row_text(r, batch) + "joint '" + m.joint_name[j] +
                              "' (" + joint_type_name(t) + ") has a zero quaternion (columns " +
                              std::to_string(c) + " to " + std::to_string(c + 3) + ")");
    }
  }
}

}  // namespace ikwb::python

PYBIND11_MODULE(ikwb, m) {
  namespace py = pybind11;
  using namespace ikwb::python;
  m.doc() =
      "IK Workbench: forward kinematics and batched inverse kinematics (C++ core). "
      "Newton-shaped: Model, State, eval_fk, eval_ik, ikwb.ik; adam-shaped: InverseKinematics; "
      "scenes: load_scene. See docs/python.md.";
  py::register_exception<ikwb::ModelError>(m, "ModelError", PyExc_ValueError).attr("__doc__") =
      "A robot file that cannot be loaded, or FK arguments the core rejects (a ValueError); "
      "the message names the file or the argument and the problem.";
  py::register_exception<ikwb::SceneError>(m, "SceneError", PyExc_ValueError).attr("__doc__") =
      "A scene file that cannot be read or resolved (a ValueError); the message names the file "
      "and the problem.";
  // Newton's arrays are Warp arrays, read with .numpy(): ours are numpy arrays of this subclass,
  // so code written for Newton runs as it is (module-level Python: the class is a numpy type)
  py::exec(R"(
import numpy as _np

class Array(_np.ndarray):
    """A numpy array, as the Newton-shaped Model and State hand them out; numpy() and device
    stand in for a Warp array's (newton code calls state.body_q.numpy())."""

    def numpy(self):
        """This array's memory as a plain numpy array (no copy), as Warp's numpy() on the CPU."""
        return self.view(_np.ndarray)

    @property
    def device(self):
        """'cpu': the arrays live in host memory."""
        return "cpu"

    def assign(self, src):
        """Copies src (an array of this shape, or a Warp-like object with numpy()) into this
        array's memory, as Warp's assign."""
        if hasattr(src, "numpy") and not isinstance(src, _np.ndarray):
            src = src.numpy()
        src = _np.asarray(src)
        if src.shape != self.shape:
            raise ValueError(f"Array.assign: expected shape {self.shape}, got {src.shape}")
        self[...] = src

    def zero_(self):
        """Sets every element to 0 in place, as Warp's zero_."""
        self[...] = 0

    def fill_(self, value):
        """Sets every element to value in place, as Warp's fill_."""
        self[...] = value
)",
           m.attr("__dict__"));
  bind_model_fk(m);
  py::module_ ik = m.def_submodule("ik", "Batched IK: objectives and IKSolver (newton.ik's shape)");
  bind_ik(ik);
  py::module_::import("sys").attr("modules")["ikwb.ik"] = ik;
  bind_adam(m);
  bind_scene(m);
#if defined(IKWB_HAVE_CUDA)
  // as the ikwb command: backend="cuda" runs on a usable GPU, else the CPU with the reason
  ikwb::register_cuda_backend();
#endif
  m.def(
      "cuda_status",
      [] {
        std::string reason;
        const bool available = ikwb::cuda_available(&reason);
        py::dict d;
        d["available"] = available;
        d["reason"] = reason;
        return d;
      },
      "Whether backend='cuda' runs on a GPU here: {'available': bool, 'reason': why not, or ''} "
      "(a build without the CUDA backend, no device, a device this build's kernels cannot run "
      "on). Solvers asked for 'cuda' where it is not available run on the CPU and say why in "
      "backend_note.");
}
