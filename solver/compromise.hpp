// Explaining the compromise of a settled solution: for every pursued objective (enabled, not soft
// of weight 0), whether it is reached, traded off against other soft objectives, out of the
// robot's reach, blocked by a hard objective or a joint limit, or only stopped short of; and for
// one that is not reached, which other objectives pull against it and by how much.
//
// Status, from the settled configuration q (each test solve starts there, on the CPU, one seed;
// where that one seed does not reach the objective, a search from the settings' seeds, 8 to 16
// of them, follows before a test counts as failed):
//   reached       the objective's own rows are within the solver's tolerances
//                 (solver/objective_report.hpp)
//   traded_off    not reached, but reached by a solve in which every other soft objective is
//                 switched off and the hard objectives (and hard joint limits) are kept, started
//                 from q or, when that one seed settles short, from where the objective alone is
//                 reached (the solve of blocked below), and other soft objectives pull against it
//                 (pulled_by: the balance of forces, or else what turning each off alone wins)
//   stopped_short as traded_off, but nothing is found pulling against it: the solution is short
//                 of a reachable objective (a local minimum or a saddle, a solve cut short);
//                 more seeds or iterations move it on, to the objective or to a trade-off with
//                 the other soft objectives (at a singular pose their forces vanish too: an arm
//                 held straight with a second target it cannot reach read stopped short where
//                 the restarts trade the two off)
//   blocked       not reached even then (best_error: how close those solves came), but reached
//                 by a solve of the objective alone (no hard objectives, no joint limits);
//                 blocked_by names the hard objectives that, kept
//                 alone with it, still stop it, and the joints at a limit (that its descent
//                 pushes against) when the limits alone stop it; when only their combination
//                 does, the hard objectives coupled to it (an active row moving a dof it moves)
//                 and the joints at a limit where the first test solve settled
//   out_of_reach  not reached by the objective alone either (best_error: how close the solves
//                 without the other soft objectives came, as for blocked); where best_error is
//                 more than 1% (or the tolerance) beyond what the objective alone gets,
//                 blocked_by names what keeps it further, each tried alone with it as for
//                 blocked (the locked joints, the hard objectives, the joints at a limit), or
//                 their combination
//
// Pulls: at a settled solution the soft objectives' forces g_j = J_j^T W_j^2 c_j (raw rows c_j,
// their Jacobian J_j, row weights W_j; inactive inequality rows and posture in the null space
// take no part) balance on the motions the hard objectives allow: with F the free dofs (dof
// mask, and not at a joint limit when limits are hard) and N a basis of the null space of the
// other hard objectives' active rows on F, sum_j N^T g_j = 0. For an objective k that is not
// reached, with A = J_k N (its rows of nonzero weight, on F), its error rows are
//   c_k = W_k^-2 (A A^T)^+ A N^T g_k = sum_{j != k} p_j,   p_j = -W_k^-2 (A A^T)^+ A N^T g_j,
// exactly when A has full row rank (else the p_j explain the part of the error the allowed
// motions can change). p_j is the part of k's error that objective j accounts for; its share is
// p_j's component along k's error, in k's units: metres of its position rows, or radians of its
// rotation rows when only the rotation is missed (rotation-only kinds, and joint limits), metres
// for min_distance. The shares sum to the error; a negative share helps k. pulled_by lists the
// positive shares above 1% of the error, largest first. Hard objectives are walls, not pullers
// (blocked_by). For a hard k (W_k = 1) the p_j are scaled so that the shares sum to its error,
// and listed only while k is traded_off (the soft objectives' pull is what strains it); a hard k
// blocked or out of reach lists none: other hard objectives, limits or its reach stop it, and
// with hard objectives that cannot all hold the scaled shares blamed whichever soft objective
// pulled at all for the whole of the violation.
// For a soft k whose shares miss adding up to its error by more than half of it, the forces do
// not balance there (hard objectives that cannot all hold spread their violation; a solve cut
// short) and no pull is listed.
// The balance is local and ignores the walls; a blocked or out of reach soft k's shares are
// scaled to add up to error - best_error, what its test solves won with every other soft objective
// off (the rest is the walls': a hand 93 mm short read as pulled 60 mm by the self-collision and 33
// mm by the other hand, where turning both off won 12 mm). objective_pulls alone does not scale.
// Custom objectives take no part (no analytic Jacobian).
#pragma once

#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "solver/solver.hpp"

namespace ikwb {

enum class ReachStatus { kReached, kTradedOff, kOutOfReach, kBlocked, kStoppedShort };
// "reached", "traded_off", "out_of_reach", "blocked", "stopped_short"
const char* to_string(ReachStatus s);
// a status of an objective the robot can reach with what must hold: traded off, stopped short
inline bool reachable(ReachStatus s) {
  return s == ReachStatus::kTradedOff || s == ReachStatus::kStoppedShort;
}
// false when the word is not one of the above
bool parse(const std::string& s, ReachStatus* out);

// what stops an objective: a hard objective, or a joint at one of its limits
struct Blocker {
  int objective = -1;
  int joint = -1;
};

// How a joint blocker reads: "locked joint NAME" when problem locks it (its dof mask), else
// "joint NAME's limits" (the limits stop the objective in a test solve with it alone; the joint
// need not be at a limit in the pose explained)
std::string blocking_joint_text(const IkProblem& problem, int joint);

// The unit of an explanation's error and shares: m, rad, or none of their own (manipulability's
// measure, custom rows, posture or joint-limit rows over dofs along and about axes alike)
enum class ShareUnit { kMetre, kRadian, kNone };
// "m", "rad", "" (none)
const char* to_string(ShareUnit u);

// objective `objective` accounts for `share` of the explained objective's error
struct Pull {
  int objective = -1;
  double share = 0;  // in Explanation::unit
};

struct Explanation {
  ReachStatus status = ReachStatus::kReached;
  std::vector<Blocker> blocked_by;
  std::vector<Pull> pulled_by;  // positive shares, largest first; empty when reached
  // traded off: the objectives whose shares are negative (they pull it toward its target), each
  // as the amount it helps by (positive), largest first; the pulls less these are the error. A
  // review's hand read "held back by posture 7.8 mm, helped by the others by 4.4 mm" with the
  // helper (a gaze) unnamed. Empty where the shares are scaled or found by removal
  std::vector<Pull> helped_by;
  ShareUnit unit = ShareUnit::kMetre;
  double error = 0;  // the error the shares split (in unit), 0 when reached
  // blocked, out of reach: the least error (the same rows, in unit) of the test solves with every
  // other soft objective off and the hard ones kept and holding; what turning weights down can
  // win at best is error - best_error. NaN otherwise, or when no such solve held the hard ones
  double best_error = std::numeric_limits<double>::quiet_NaN();
};

// The part of an explanation's error its shares split: all of it, or for a blocked or out of
// reach objective what the test solves won without the other soft objectives, error -
// best_error (at least 0; the rest is the walls', or beyond the reach)
double pulled_error(double error, double best_error);

struct CompromiseReport {
  // (objective_count); those not pursued (disabled, soft of weight 0): reached, empty
  std::vector<Explanation> objectives;
  int solves = 0;      // test solves run
  double seconds = 0;  // wall time of the whole explanation
  // explain_compromise's stop read true before it finished: the objectives explained before
  // the stop have their status, the rest objective_pulls' pulls only; not a whole explanation
  // (the workbench discards it)
  bool stopped = false;
};

// The pulls alone (no solves): every pursued objective not within the tolerances gets its
// pulled_by, unit and error; status is left kReached. q: coord_count values.
std::vector<Explanation> objective_pulls(const IkProblem& problem, int problem_index,
                                         const std::vector<double>& q,
                                         const SolverSettings& settings);

// Status, blockers and pulls of every objective of problem `problem_index` at its settled
// configuration q. The test solves use `settings` with one seed (no sampler, no restarts, no
// time budget; a search of 8 to 16 seeds where it fails) and at least 100 iterations, on the
// CPU in double. Throws std::invalid_argument on
// wrong sizes. stop (or null) is read before each test solve: once it is true the explanation
// ends there, stopped (a caller on another thread that no longer needs it: a scene of 209
// objectives took one core for 20 s, 2766 test solves).
CompromiseReport explain_compromise(const IkProblem& problem, int problem_index,
                                    const std::vector<double>& q, const SolverSettings& settings,
                                    const std::atomic<bool>* stop = nullptr);

}  // namespace ikwb
