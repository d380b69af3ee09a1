// A CollisionMemo (solver/objective_collision.hpp) with the storage it points into, kept for one
// collision world at a time. The CPU backend's workspaces keep one per thread; the workbench
// keeps one for the objectives' status it reports after every frame's solve, whose searches its
// pair list then mostly answers. Host only.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/objective_collision.hpp"

namespace ikwb {

template <class T>
class CollisionMemoStore {
 public:
  // The memo for searches of world c (world_id: IkProblem::collision_world_id) at the poses of
  // body_count bodies. Kept from the last call for the same world: the same id answers without
  // reading the world (whose contents, 650 pairs on the humanoid, a frame's solve would otherwise
  // read from memory that drawing the frame has evicted); another id compares the contents, so
  // an equal world in another problem keeps the memo too. Else emptied and sized for this
  // world's pair lists.
  CollisionMemo<T>* use(const CollisionView<T>& c, uint64_t world_id, int body_count) {
    if (body_count != memo_.body_count) {
      poses_.assign(std::size_t(4) * body_count, transform_identity<T>());
      memo_.body_count = body_count;
      for (int set = 0; set < 2; ++set) {
        memo_.saved[set] = poses_.data() + set * body_count;
        memo_.built[set] = poses_.data() + (2 + set) * body_count;
      }
      memo_.clear();
      world_.clear();
      world_id_ = 0;
    }
    if (world_id == world_id_) return &memo_;
    world_id_ = world_id;
    scratch_.clear();
    world_contents(c, scratch_);
    if (scratch_ == world_) return &memo_;
    world_.swap(scratch_);
    const int cap = std::max(collision_pair_count(c, true), collision_pair_count(c, false));
    if (cap != memo_.list_capacity) {
      lists_.assign(std::size_t(2) * cap, 0);
      list_dists_.assign(std::size_t(cap), T(0));
      memo_.list[0] = lists_.data();
      memo_.list[1] = lists_.data() + cap;
      memo_.list_dist = list_dists_.data();
      memo_.list_capacity = cap;
    }
    memo_.clear();
    return &memo_;
  }

 private:
  // every value a collision search reads besides the poses, in order
  static void world_contents(const CollisionView<T>& c, std::vector<double>& out) {
    for (int i = 0; i < c.capsule_count; ++i) {
      const LinkCapsule<T>& a = c.capsules[i];
      out.insert(out.end(), {double(a.body), double(a.p0.x), double(a.p0.y), double(a.p0.z),
                             double(a.p1.x), double(a.p1.y), double(a.p1.z), double(a.radius)});
    }
    out.push_back(-1.0);
    for (int i = 0; i < 2 * c.self_pair_count; ++i) out.push_back(double(c.self_pairs[i]));
    out.push_back(-1.0);
    for (int i = 0; i < c.world_capsule_count; ++i) out.push_back(double(c.world_capsules[i]));
    out.push_back(-1.0);
    for (int i = 0; i < c.obstacle_count; ++i) {
      const CollisionShape<T>& o = c.obstacles[i];
      out.insert(out.end(),
                 {double(int(o.type)), double(o.pose.p.x), double(o.pose.p.y), double(o.pose.p.z),
                  double(o.pose.q.x), double(o.pose.q.y), double(o.pose.q.z), double(o.pose.q.w),
                  double(o.size.x), double(o.size.y), double(o.size.z)});
    }
  }

  CollisionMemo<T> memo_;
  std::vector<Transform<T>> poses_;  // (4 x body_count) the memo's saved and built poses
  std::vector<int> lists_;           // (2 x list capacity) its pair lists
  std::vector<T> list_dists_;        // (list capacity) search_and_list's scratch
  std::vector<double> world_;        // the world the memo is of (world_contents)
  std::vector<double> scratch_;
  uint64_t world_id_ = 0;  // and its IkProblem::collision_world_id (0: none yet)
};

}  // namespace ikwb
