// `ikwb check ROBOT.urdf --q Q.csv [--scene S.json] [--srdf FILE]`: for each configuration, the
// closest pair of links (or link and obstacle) and whether anything collides; and
// `ikwb check ROBOT.urdf --sample-pairs N`: an SRDF that disables the pairs that never collide,
// always collide or collide in the rest configuration (as MoveIt's setup assistant).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/cli/cli_args.hpp"
#include "app/cli/commands.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/trajectory_io.hpp"
#include "engine/core/collision_geometry.hpp"
#include "engine/core/fk.hpp"
#include "engine/core/output_target.hpp"
#include "engine/core/robot_file.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/scene.hpp"
#include "engine/core/urdf_loader.hpp"

namespace ikwb {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSummary =
    "Collision check of each configuration in Q.csv (the format of `ikwb fk`, header included)\n"
    "against the robot itself and the obstacles of --scene (links are the capsules fitted to\n"
    "their <collision> elements; pairs joined by a joint, and those of --srdf or the scene's\n"
    "\"srdf\", are skipped; a shipped robot given by name, without --scene or --srdf, uses the\n"
    "SRDF beside it, as its preset does).\n"
    "Writes CSV: config,in_collision,link_a,other,distance,colliding_pairs (other: a link, or\n"
    "obstacle:NAME; distance in m, negative in penetration; a row of a target `ikwb solve`\n"
    "skipped, all nan: in_collision=unsolved, not checked). Exit status 3 when any\n"
    "configuration collides; an error (status 1) when nothing can be checked: no pair of links\n"
    "and no link and obstacle (no collision geometry, meshes not loaded, every pair joined by a\n"
    "joint or disabled).\n"
    "--sample-pairs N: writes an SRDF whose <disable_collisions> entries are the pairs that\n"
    "never collide in N random configurations (reason Never), collide in at least 95% of them\n"
    "(Always), or collide in the neutral configuration (Default); an error when the robot has\n"
    "no pair of links to sample.";

constexpr int kCollides = 3;

// Why a robot has no pair of links to check: no link with collision capsules (meshes not loaded,
// or no geometry at all), one only, or every pair joined by a joint (or, with `disabled`,
// skipped by the SRDF or the scene).
std::string no_pairs_reason(const Model& m, const std::vector<std::pair<int, int>>& disabled) {
  std::vector<std::string> with_capsules;
  int without_mesh = 0;  // links whose collision (or visual) elements have no loaded mesh
  for (int b = 0; b < m.body_count; ++b) {
    const bool fitted = m.collision.body_first[b + 1] > m.collision.body_first[b];
    if (fitted) with_capsules.push_back(m.body_name[b]);
    const std::vector<Geometry>& elements =
        m.body_collisions[b].empty() ? m.body_visuals[b] : m.body_collisions[b];
    without_mesh += !fitted && !elements.empty();
  }
  const std::string unloaded = without_mesh > 0
                                   ? "the meshes of " + std::to_string(without_mesh) + " link" +
                                         (without_mesh == 1 ? " were" : "s were") +
                                         " not loaded (see the warnings above)"
                                   : "";
  if (with_capsules.empty())
    return "the robot has no collision geometry: " +
           (unloaded.empty() ? std::string("no link has collision or visual elements") : unloaded);
  if (with_capsules.size() == 1)
    return "only link '" + with_capsules[0] + "' has collision geometry" +
           (unloaded.empty() ? "" : "; " + unloaded);
  return self_collision_pairs(m).empty() || disabled.empty()
             ? "every pair of links with collision geometry is joined by a joint"
             : "every pair of links with collision geometry is joined by a joint or disabled (by "
               "the SRDF or the scene's collision_pairs)";
}

}  // namespace

int cmd_check(int argc, char** argv) {
  ArgParser args("ikwb check", kSummary);
  long long samples = 0, seed = 1;  // --sample-pairs, --seed
  args.add_positional("ROBOT.urdf", "robot description, or a shipped robot's name");
  args.add_option("q", "Q.csv", "joint configurations ('-' for standard input)");
  args.add_option("scene", "S.json", "obstacles and \"srdf\" of a scene");
  args.add_option("srdf", "FILE", "pairs to skip (replaces the scene's)");
  args.add_option("sample-pairs", "N", "write an SRDF of pairs to disable, from N samples");
  args.add_option("seed", "S", "random seed of --sample-pairs (default 1)");
  args.add_option("out", "OUT", "output file (default '-': standard output)");
  add_robot_options(args);
  try {
    args.parse(argc, argv);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    if (args.has("sample-pairs") == args.has("q"))
      throw CliError("give either --q Q.csv or --sample-pairs N");
    // what one mode reads and the other would ignore
    for (const char* o : {"scene", "srdf"})
      if (args.has("sample-pairs") && args.has(o))
        throw CliError(std::string("--") + o +
                       " does not go with --sample-pairs (it samples every pair the robot has)");
    if (args.has("q") && args.has("seed"))
      throw CliError("--seed goes with --sample-pairs (the random configurations it samples)");
    if (args.has("sample-pairs")) {
      samples = args.get_int("sample-pairs", 0, 1, 10000000);
      seed = args.get_int("seed", 1, 0, std::numeric_limits<unsigned>::max());
    }
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb check: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }
  const std::string out_path = args.has("out") ? args.get("out") : "-";
  const std::string q_path = args.get("q");
  try {
    refuse_output_over_inputs("--out", out_path,
                              {{"ROBOT.urdf", resolve_robot(args.get("ROBOT.urdf"))},
                               {"--q", q_path},
                               {"--scene", args.has("scene") ? args.get("scene") : ""},
                               {"--srdf", args.has("srdf") ? args.get("srdf") : ""}});
    LoadResult r = load_robot_file(resolve_robot(args.get("ROBOT.urdf")),
                                   read_robot_options(args, MeshFiles::kCollision));
    print_warnings(r.warnings);
    const Model& m = *r.model;
    print_warnings(m.collision.warnings);

    if (args.has("sample-pairs")) {
      if (self_collision_pairs(m).empty())
        throw std::runtime_error("no pair of links to sample: " + no_pairs_reason(m, {}) +
                                 "; no SRDF written");
      std::vector<DisabledPair> pairs = sampled_disabled_pairs(m, int(samples), unsigned(seed));
      std::string text = srdf_text(m, pairs);
      if (out_path == "-")
        std::printf("%s", text.c_str());
      else
        write_file_atomic(out_path, text);
      std::fprintf(stderr, "check: %zu of %zu pairs disabled from %lld samples\n", pairs.size(),
                   self_collision_pairs(m).size(), samples);
      return 0;
    }

    Scene scene;
    if (args.has("scene")) {
      scene = load_scene(args.get("scene"));
      refuse_output_over_inputs("--out", out_path, {{"the scene's srdf", scene.srdf}});
      print_warnings(scene.warnings, args.get("scene"));
    }
    if (args.has("srdf")) scene.srdf = args.get("srdf");
    // a shipped robot given by name checks as its preset does: with the SRDF beside it
    const std::string robot_arg = args.get("ROBOT.urdf");
    const std::string robot_file = resolve_robot(robot_arg);
    // a scene of another robot: its obstacles and pairs are checked on this one, said
    if (args.has("scene") && !scene.robot.empty()) {
      std::error_code ec;
      const std::string scene_robot = resolve_robot(scene.robot);
      if (!fs::equivalent(scene_robot, robot_file, ec))
        std::fprintf(stderr,
                     "warning: %s is a scene of %s; its obstacles and collision pairs are checked "
                     "on %s\n",
                     args.get("scene").c_str(), scene.robot.c_str(), robot_file.c_str());
    }
    if (!args.has("scene") && !args.has("srdf") && robot_file != robot_arg) {
      const std::string beside = fs::path(robot_file).replace_extension(".srdf").string();
      std::error_code ec;
      if (fs::is_regular_file(beside, ec)) {
        scene.srdf = beside;
        std::fprintf(stderr, "note: the shipped %s's SRDF: %s\n", robot_arg.c_str(),
                     beside.c_str());
      }
    }
    std::vector<std::pair<int, int>> disabled;
    if (args.has("srdf")) {
      disabled = fitting_srdf_pairs(m, scene.srdf);
    } else if (!scene.srdf.empty()) {
      std::vector<std::string> srdf_warnings;
      disabled = disabled_body_pairs(m, load_srdf(scene.srdf), srdf_warnings, scene.srdf);
      print_warnings(srdf_warnings);
    }
    // the scene's pairs turned off or on by hand
    std::vector<std::string> pair_warnings;
    std::vector<std::pair<int, int>> off = named_body_pairs(
        m, scene.collision_pairs.disabled, "collision_pairs.disabled", pair_warnings);
    std::vector<std::pair<int, int>> on = named_body_pairs(
        m, scene.collision_pairs.enabled, "collision_pairs.enabled", pair_warnings);
    print_warnings(pair_warnings);
    disabled.insert(disabled.end(), off.begin(), off.end());
    CollisionWorld world = make_collision_world(m, disabled, scene.obstacles, on);

    // a world where nothing can collide would call every configuration free
    if (world.self_pair_count() == 0 && (world.world_capsules.empty() || world.obstacles.empty()))
      throw std::runtime_error(
          "nothing can be checked: " + no_pairs_reason(m, disabled) +
          (world.obstacles.empty() ? ""
                                   : ", and no moving link has collision geometry to meet "
                                     "the obstacles") +
          "; nothing written (every configuration would read in_collision=no)");
    // rows of targets `ikwb solve` skipped (all nan) keep their place, marked (check refused
    // the whole file)
    std::vector<uint8_t> unsolved;
    NumericTable q = read_configurations_csv(q_path, m, &unsolved);
    if (q.row_count() == 0) throw CsvError(q_path + ": no configurations");

    CsvWriter out(out_path);
    out.row({"config", "in_collision", "link_a", "other", "distance", "colliding_pairs"});
    State state(m);
    int colliding_configs = 0;
    for (std::size_t i = 0; i < q.row_count(); ++i) {
      if (unsolved[i]) {
        out.field(static_cast<long long>(i)).field("unsolved").field("").field("");
        out.field(std::numeric_limits<double>::quiet_NaN()).field("").end_row();
        continue;
      }
      eval_fk(m, q.rows[i], {}, state);
      // the closest pair, and every pair in collision
      std::vector<BodyDistance> d = closest_distances(world, state.body_q.data(), 1, 0.0);
      int colliding = 0;
      for (const BodyDistance& e : d) colliding += e.contact.distance < 0;
      colliding_configs += colliding > 0;
      out.field(static_cast<long long>(i)).field(colliding > 0 ? "yes" : "no");
      if (d.empty()) {
        out.field("").field("").field("");
      } else {
        const BodyDistance& c = d[0];
        out.field(m.body_name[c.body_a]);
        out.field(c.obstacle >= 0 ? "obstacle:" + world.obstacle_names[c.obstacle]
                                  : m.body_name[c.body_b]);
        out.field(c.contact.distance);
      }
      out.field(static_cast<long long>(colliding));
      out.end_row();
    }
    out.close();
    // links whose collision meshes were not read have no capsules there: not checked (the
    // summary read as if every link was; a review)
    std::string unread;
    int unread_count = 0;
    for (int b = 0; b < m.body_count; ++b)
      for (const Geometry& g : m.body_collisions[b])
        if (g.placeholder) {
          if (++unread_count <= 5) unread += (unread.empty() ? "" : ", ") + m.body_name[b];
          break;
        }
    if (unread_count > 5) unread += ", ...";
    const std::size_t skipped = std::size_t(std::count(unsolved.begin(), unsolved.end(), 1));
    if (skipped > 0)
      std::fprintf(stderr,
                   "check: rows of targets `ikwb solve` skipped (all nan): %zu, written as "
                   "in_collision=unsolved and not checked\n",
                   skipped);
    std::fprintf(
        stderr, "check: %d of %zu configurations in collision (%d capsule pairs checked)%s\n",
        colliding_configs, q.row_count() - skipped,
        world.self_pair_count() + int(world.world_capsules.size() * world.obstacles.size()),
        unread.empty() ? ""
                       : ("; not checked: the collision meshes of " + unread +
                          " (not read: see the warnings above)")
                             .c_str());
    if (colliding_configs > 0 && scene.srdf.empty())
      std::fprintf(stderr,
                   "check: no SRDF, so every pair not joined by a joint was checked; capsules "
                   "that cover the links across a short wrist or a gripper can overlap where "
                   "the meshes do not. Give the robot's SRDF (--srdf, or a scene's \"srdf\"; the "
                   "shipped robots' are beside them, e.g. assets/robots/panda/panda.srdf), or "
                   "write one: ikwb check ROBOT --sample-pairs 10000 --out ROBOT.srdf\n");
    return colliding_configs > 0 ? kCollides : 0;
  } catch (const std::bad_alloc&) {
    return report_out_of_memory("ikwb check", args.has("q") ? "the configurations of " + q_path
                                                            : "the sampled configurations");
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb check: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ikwb check: %s\n", e.what());
    return 1;
  }
}

}  // namespace ikwb
