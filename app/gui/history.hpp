// Undo / redo of the workbench's edits as scene snapshots (AppState::make_scene).
//
// observe() runs once per frame after the edits, the solve and FK. When AppState::edit_serial
// changed (a finished edit: a drag released, a slider let go, an objective added, a robot
// opened) the state before the edit becomes one undo step; a continuous drag is one step. The
// configuration of a step is the one of the last frame in which nothing was being dragged.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/app_state.hpp"

namespace ikwb::gui {

class History {
 public:
  explicit History(std::size_t depth = 200) : depth_(depth) {}

  // busy: a drag or a slider edit is in progress (the configuration is not a resting one)
  void observe(AppState& app, bool busy);
  // restores the state before the last edit; false when there is nothing to undo
  bool undo(AppState& app);
  bool redo(AppState& app);
  std::size_t undo_depth() const { return undo_.size(); }
  std::size_t redo_depth() const { return redo_.size(); }
  std::size_t max_depth() const { return depth_; }
  // what the next undo / redo reverts ("" when none)
  std::string undo_label() const { return undo_.empty() ? "" : undo_.back().label; }
  std::string redo_label() const { return redo_.empty() ? "" : redo_.back().label; }

 private:
  struct Step {
    Scene scene;
    std::string label;  // the edit that followed this state
  };
  // the snapshot with the configuration of the last resting frame
  Scene resting_snapshot() const;
  bool move(AppState& app, std::deque<Step>& from, std::deque<Step>& to, const char* what);
  void rebase(AppState& app);

  std::size_t depth_;
  std::deque<Step> undo_, redo_;
  bool started_ = false;
  uint64_t seen_serial_ = 0;
  Scene current_;                       // the state after the last edit
  std::vector<double> resting_q_;       // configuration of the last frame nothing moved by hand
  std::shared_ptr<const Model> model_;  // resting_q_'s model
};

}  // namespace ikwb::gui
