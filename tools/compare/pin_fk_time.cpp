// Times Pinocchio's forward kinematics in C++ (the library from the `pin` wheel), for a fair
// per-configuration comparison with our in-process eval_fk: no Python call overhead.
// Built by tools/compare/run.py against the venv's cmeel.prefix headers and libraries.
//
//   pin_fk_time ROBOT.urdf QPIN.csv REPS
// QPIN.csv: one configuration per line in Pinocchio's q layout (nq values, written by bench.py).
// Prints `frames_ns <ns> joints_ns <ns> configs <n>`: best of REPS passes (each over at least
// 10000 configurations, the rows repeated) of
//   framesForwardKinematics (joint placements + every frame: what `ikwb fk` returns, a pose
//   per link) and forwardKinematics (joint placements only).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/parsers/urdf.hpp>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: pin_fk_time ROBOT.urdf QPIN.csv REPS\n");
    return 2;
  }
  pinocchio::Model model;
  pinocchio::urdf::buildModel(argv[1], model);
  pinocchio::Data data(model);
  std::vector<Eigen::VectorXd> qs;
  std::ifstream in(argv[2]);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string f;
    std::vector<double> v;
    while (std::getline(ss, f, ',')) v.push_back(std::strtod(f.c_str(), nullptr));
    if (int(v.size()) != model.nq) {
      std::fprintf(stderr, "pin_fk_time: row with %zu values, nq = %d\n", v.size(), model.nq);
      return 1;
    }
    qs.push_back(Eigen::Map<Eigen::VectorXd>(v.data(), model.nq));
  }
  if (qs.empty()) return 1;
  const int reps = std::atoi(argv[3]);
  // CPU time of the process (the machine is shared; see masked_fk_driver.cpp)
  auto cpu_now = [] {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
  };
  // each timed pass covers >= 10000 configurations (the rows repeated), as in our driver
  const int inner = std::max<int>(1, 10000 / int(qs.size()));
  double best_frames = 1e300, best_joints = 1e300, sink = 0;
  for (int r = 0; r < reps + 1; ++r) {
    double t0 = cpu_now();
    for (int k = 0; k < inner; ++k)
      for (const auto& q : qs) pinocchio::framesForwardKinematics(model, data, q);
    double dt = (cpu_now() - t0) / inner;
    sink += data.oMf.back().translation()[0];
    if (r > 0 && dt < best_frames) best_frames = dt;
    t0 = cpu_now();
    for (int k = 0; k < inner; ++k)
      for (const auto& q : qs) pinocchio::forwardKinematics(model, data, q);
    dt = (cpu_now() - t0) / inner;
    sink += data.oMi.back().translation()[0];
    if (r > 0 && dt < best_joints) best_joints = dt;
  }
  const double n = double(qs.size());
  std::printf("frames_ns %.3f joints_ns %.3f configs %zu (checksum %g)\n", best_frames * 1e9 / n,
              best_joints * 1e9 / n, qs.size(), sink);
  return 0;
}
