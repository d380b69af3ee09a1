// Google Benchmark: whole-body solves on the shipped humanoid preset (issue 15, Measured). Both
// feet fixed (hard pose objectives at their preset poses), the support polygon of the soles hard,
// the hands (the preset's soft pose objectives) at random reachable targets; the preset's posture
// and joint limit objectives as they are.
//
// Targets: the preset's configuration with every joint that is not between the root and a fixed
// foot (torso, neck, arms) drawn uniformly within its limits; the hands' poses there are the
// targets. A draw whose centre of mass falls outside the support polygon (margin included) is
// thrown away, so every target set has a configuration meeting every hard objective.
// Settings: what `ikwb solve --scene` uses on the preset (its defaults, then the preset's solver
// block), on one thread; each problem starts at the preset's configuration.
// Runs: the preset's 16 seeds, and one seed (the preset's configuration, uniform restarts).
// Counters: success (the returned configuration reaches every objective, judged by
// report_objectives with the solver's tolerances), lm_iters_per_solve (every seed's iterations,
// restarts included), best_seed_iters (the winning seed's), s_per_lm_iter and s_per_solve (CPU
// time / count), rejected_draws.
#include <benchmark/benchmark.h>

#include <algorithm>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "engine/core/fk.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"
#include "solver/objective_report.hpp"
#include "solver/scene_problem.hpp"
#include "solver/settings.hpp"

namespace {

using namespace ikwb;

struct Setup {
  std::shared_ptr<const Model> model;
  SceneSetup scene;
  SolverSettings settings;
  IkProblem problem;
  int rejected = 0;
};

std::vector<Transform<double>> poses_at(const Model& m, const std::vector<double>& q) {
  State s(m);
  eval_fk(m, q, {}, s);
  return s.body_q;
}

// joints on the path from the root to a body (those keep the fixed feet where they are)
void mark_path(const Model& m, int body, std::vector<bool>& on_path) {
  for (int j = m.body_joint[body]; j >= 0; j = m.joint_ancestor[j]) on_path[j] = true;
}

Setup make_setup(const std::string& robot, int count) {
  Scene scene = load_scene(IKWB_SOURCE_DIR "/assets/robots/" + robot + "/preset.json");
  UrdfOptions opt;
  opt.floating_base = scene.floating_base;
  opt.load_meshes = false;
  std::shared_ptr<const Model> model = load_urdf_file(resolve_robot(scene.robot), opt).model;
  Setup s{model, resolve_scene(*model, scene), {}, IkProblem(model), 0};
  const Model& m = *model;

  // `ikwb solve --scene`'s settings (batch_solve_settings, then the scene), one thread
  s.settings = batch_solve_settings();
  std::vector<std::string> warnings;
  apply_solver_json(scene.solver, s.settings, warnings);
  s.settings.threads = 1;

  // the problem measured is balance and reach: the preset's self_collision and gaze (look_at)
  // objectives (added to the presets after these figures were taken) are left out
  std::vector<PlacedObjective>& objs = s.scene.objectives;
  objs.erase(std::remove_if(objs.begin(), objs.end(),
                            [](const PlacedObjective& o) {
                              ObjectiveType t = o.objective.params.type;
                              return t == ObjectiveType::kSelfCollision ||
                                     t == ObjectiveType::kWorldCollision ||
                                     t == ObjectiveType::kLookAt;
                            }),
             objs.end());

  // hard pose objectives are the fixed feet, soft pose objectives the hands
  std::vector<bool> fixed(m.joint_count, false);
  std::vector<int> hands;
  for (int i = 0; i < int(s.scene.objectives.size()); ++i) {
    const ObjectiveParams<double>& p = s.scene.objectives[i].objective.params;
    if (p.type != ObjectiveType::kPose) continue;
    if (p.hard)
      mark_path(m, p.link, fixed);
    else
      hands.push_back(i);
  }

  s.problem = make_problem(model, s.scene.objectives, count);
  apply_joint_settings(s.scene, s.problem);
  std::mt19937 rng(15);
  for (int made = 0; made < count;) {
    std::vector<double> q = s.scene.q;
    for (int d = 0; d < m.dof_count; ++d) {
      int j = m.dof_joint[d];
      double lo = s.scene.dof_lower[d], hi = s.scene.dof_upper[d];
      if (fixed[j] || m.joint_mimic[j] >= 0 || m.joint_q_start[j + 1] - m.joint_q_start[j] != 1 ||
          !std::isfinite(lo) || !std::isfinite(hi))
        continue;
      std::uniform_real_distribution<double> u(lo, hi);
      q[m.joint_q_start[j]] = u(rng);
    }
    auto body_q = poses_at(m, q);
    for (std::size_t h = 0; h < hands.size(); ++h) {
      Transform<double> t = objective_met_target(m, s.problem.objective(hands[h]).params, body_q);
      s.problem.set_target_pose(hands[h], made, t);
    }
    if (!all_reached(s.problem, report_objectives(s.problem, made, q, body_q, s.settings))) {
      ++s.rejected;  // an objective missed there (the CoM off the feet): draw again
      continue;
    }
    ++made;
  }
  return s;
}

void whole_body(benchmark::State& state, const std::string& robot) {
  const int count = int(state.range(0));
  Setup s = make_setup(robot, count);
  if (state.range(1) > 0) s.settings.n_seeds = int(state.range(1));
  auto solver = make_cpu_solver();
  SolveResult r;
  double lm_iters = 0, best_iters = 0;
  for (auto _ : state) {
    solver->solve(s.problem, s.settings, s.scene.q, r);
    for (const ProblemResult& p : r.problems) {
      lm_iters += p.total_iterations;
      best_iters += p.iterations;
    }
  }
  int success = 0;
  for (int i = 0; i < count; ++i) {
    const std::vector<double>& q = r.problems[i].q;
    success += all_reached(s.problem,
                           report_objectives(s.problem, i, q, poses_at(*s.model, q), s.settings));
  }
  using C = benchmark::Counter;
  double solves = double(state.iterations()) * count;
  state.SetItemsProcessed(int64_t(solves));
  state.counters["success"] = double(success) / count;
  state.counters["lm_iters_per_solve"] = lm_iters / solves;
  state.counters["best_seed_iters"] = best_iters / solves;
  state.counters["seeds"] = s.settings.n_seeds;
  state.counters["s_per_solve"] = C(solves, C::kIsRate | C::kInvert);
  state.counters["s_per_lm_iter"] = C(lm_iters, C::kIsRate | C::kInvert);
  state.counters["rejected_draws"] = s.rejected;
}

void BM_WholeBodyHumanoid(benchmark::State& state) {
  whole_body(state, "humanoid");
}
// {problems, seeds (0: the preset's)}; CPU time of the whole process (the solver's pool thread)
BENCHMARK(BM_WholeBodyHumanoid)
    ->Args({100, 0})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
