// Undo / redo of the workbench's edits as scene snapshots (AppState::make_scene).
//
// observe() runs once per frame after the edits, the solve and FK. When AppState::edit_serial
// changed (a finished edit: a drag released, a slider let go, an objective added, a robot
// opened) the state before the edit becomes one undo step; a continuous drag is one step. The
// configuration of a step is the one of the last frame in which nothing was being dragged.
// Each step also keeps its document, the scene file its state belongs to ("" none): undoing the
// opening of a scene takes the workbench back to the file it came from, so that a save goes
// there and not over the scene opened since. A save under a name (saved_as) takes the steps of
// the old document with it. The session's stored configurations are kept with each step too
// (storing or deleting one is an edit; undo brings the list back with the scene).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "app/gui/app_state.hpp"
#include "app/gui/stored_configs.hpp"

namespace ikwb::gui {

// the most timeline keys the steps hold together: each step is a whole scene, so a timeline of
// 10,000 keys made every step 13 MB (2.8 GB at 200 steps); the oldest steps go first. A stored
// configuration (a key's size) counts as a key where a step's list is not the step before's.
constexpr std::size_t kMaxUndoKeys = 100000;

class History {
 public:
  explicit History(std::size_t depth = 200) : depth_(depth) {}

  // busy: a drag or a slider edit is in progress (the configuration is not a resting one);
  // stored: the session's stored configurations, stored_serial bumping with every change to
  // them (a change is a step of its own, "store configuration" or "delete configuration": not
  // an AppState edit, which the timeline takes for a pose edit of its selected key);
  // document: the scene file the state now belongs to
  void observe(AppState& app, const std::vector<StoredConfig>& stored, uint64_t stored_serial,
               bool busy, const std::string& document);
  // restores the state before the last edit (and its stored configurations into `stored`);
  // false when there is nothing to undo. document() is then the restored state's.
  bool undo(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
            const std::string& document);
  bool redo(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
            const std::string& document);
  const std::string& document() const { return document_; }
  // which state the workbench is in: a new number for each edit's state after it, and undo /
  // redo bring back the number of the state they restore (a session saved in a state is saved
  // again when undo or redo returns to it)
  uint64_t state() const { return state_; }
  // the state was saved as `document`: the steps of its file go with it, as an editor's Save as
  // does (an untitled session's steps undone after its first save still save there)
  void saved_as(const std::string& document);
  std::size_t undo_depth() const { return undo_.size(); }
  std::size_t redo_depth() const { return redo_.size(); }
  std::size_t max_depth() const { return depth_; }
  // what the next undo / redo reverts ("" when none)
  std::string undo_label() const { return undo_.empty() ? "" : undo_.back().label; }
  std::string redo_label() const { return redo_.empty() ? "" : redo_.back().label; }

 private:
  using StoredList = std::shared_ptr<const std::vector<StoredConfig>>;
  struct Step {
    Scene scene;
    StoredList stored;     // shared with the neighbouring steps while unchanged
    std::string label;     // the edit that followed this state
    std::string document;  // the scene file of this state
    uint64_t state = 0;    // its state()
  };
  // the snapshot with the configuration of the last resting frame
  Scene resting_snapshot() const;
  bool move(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
            std::deque<Step>& from, std::deque<Step>& to, const char* what,
            const std::string& document);
  void rebase(AppState& app, const std::vector<StoredConfig>& stored);
  // the oldest steps go while there are more than depth_ or they hold more than kMaxUndoKeys
  void trim();

  std::size_t depth_;
  std::deque<Step> undo_, redo_;
  bool started_ = false;
  uint64_t seen_serial_ = 0;
  uint64_t seen_stored_serial_ = 0;
  uint64_t seen_keys_settled_ = 0;   // TimelineState::keys_settled
  uint64_t seen_poses_applied_ = 0;  // TimelineState::poses_applied
  // the timeline's loop and speed, the frame step and budget
  std::tuple<bool, double, double, double> seen_extras_;
  Scene current_;                       // the state after the last edit
  StoredList current_stored_;           // and its stored configurations
  std::string document_;                // current_'s scene file
  uint64_t state_ = 1;                  // current_'s state()
  uint64_t last_state_ = 1;             // the last number given to a state
  std::vector<double> resting_q_;       // configuration of the last frame nothing moved by hand
  std::shared_ptr<const Model> model_;  // resting_q_'s model
};

}  // namespace ikwb::gui
