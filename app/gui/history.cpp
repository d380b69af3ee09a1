// Snapshot-based undo / redo (see history.hpp).
#include "app/gui/history.hpp"

#include <algorithm>

#include "solver/settings.hpp"

namespace ikwb::gui {

namespace {

// the solver settings a step keeps, without the backend (a choice about this machine, which
// undo leaves alone; a CUDA failure that falls back to the CPU is not an edit)
nlohmann::json settings_of_step(const nlohmann::json& solver) {
  nlohmann::json j = solver;
  if (j.is_object()) j.erase("backend");
  return j;
}

// what a scene keeps that is no undo step (Session's extras)
std::tuple<bool, double, double, double> scene_extras(const AppState& app) {
  return {app.timeline.loop, app.timeline.speed, app.frame_step, app.scene_frame_budget_ms()};
}

bool same_stored(const std::vector<StoredConfig>& a, const std::vector<StoredConfig>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const StoredConfig& x, const StoredConfig& y) {
                      return x.name == y.name && x.q == y.q && x.columns == y.columns;
                    });
}

}  // namespace

Scene History::resting_snapshot() const {
  Scene s = current_;
  if (!model_ || int(resting_q_.size()) != model_->coord_count) return s;
  const Model& m = *model_;
  s.joint_q.clear();
  for (int j = 0; j < m.joint_count; ++j) {
    int a = m.joint_q_start[j], b = m.joint_q_start[j + 1];
    if (b > a)
      s.joint_q[m.joint_name[j]] =
          std::vector<double>(resting_q_.begin() + a, resting_q_.begin() + b);
  }
  return s;
}

void History::rebase(AppState& app, const std::vector<StoredConfig>& stored) {
  seen_serial_ = app.edit_serial;
  seen_keys_settled_ = app.timeline.keys_settled;
  seen_poses_applied_ = app.timeline.poses_applied;
  seen_extras_ = scene_extras(app);
  current_ = app.make_scene();
  if (!current_stored_ || !same_stored(*current_stored_, stored))
    current_stored_ = std::make_shared<const std::vector<StoredConfig>>(stored);
  resting_q_ = app.joint_q;
  model_ = app.model;
}

void History::trim() {
  auto held = [this] {
    std::size_t keys = 0;
    const std::vector<StoredConfig>* before = nullptr;
    for (const Step& s : undo_) {
      keys += s.scene.timeline.keys.size();
      if (s.stored.get() != before && s.stored) keys += s.stored->size();
      before = s.stored.get();
    }
    return keys;
  };
  while (undo_.size() > depth_ || (undo_.size() > 1 && held() > kMaxUndoKeys)) undo_.pop_front();
}

void History::observe(AppState& app, const std::vector<StoredConfig>& stored,
                      uint64_t stored_serial, bool busy, const std::string& document) {
  if (!app.model) return;
  // a branch edit with changes is an edit in progress until the mode ends (its configuration is
  // not a resting one): a locked joint turned in it became the undo step's own configuration,
  // and undo took back the step before instead
  busy = busy || (app.branch.active && app.branch.edits > 0);
  if (!started_) {
    started_ = true;
    rebase(app, stored);
    seen_stored_serial_ = stored_serial;
    document_ = document;
    return;
  }
  // the state before the group stays the step's (its configuration too)
  if (app.edit_group_open) return;
  // a solver setting changed (the Solver panel, the script's `solver`) is a step of its own,
  // once it has been let go
  const bool settings_edit =
      app.edit_serial == seen_serial_ && !busy &&
      settings_of_step(solver_settings_json(app.settings)) != settings_of_step(current_.solver);
  // so is a change to the stored configurations (K, Delete; undo and redo put back a step's
  // list, which is no change here)
  const bool stored_edit =
      stored_serial != seen_stored_serial_ && !same_stored(*current_stored_, stored);
  seen_stored_serial_ = stored_serial;
  if (app.edit_serial == seen_serial_ && !settings_edit && !stored_edit) {
    if (!busy) resting_q_ = app.joint_q;
    document_ = document;
    // a selected key took the pose the last edit led to: part of that edit's state after
    if (app.timeline.keys_settled != seen_keys_settled_) {
      seen_keys_settled_ = app.timeline.keys_settled;
      current_ = app.make_scene();
    }
    // taken again, once resting (not at every frame of a playback), after what changes the
    // scene without an edit: a key selected or the playhead moved (the robot and its targets at
    // a pose: an undo after a selection and a drag put back the targets from before the
    // selection with the key's joints), and the timeline's loop and speed and the frame step and
    // budget (an undo of the next edit put back the ones before them)
    if (!busy && !app.timeline.playing &&
        (app.timeline.poses_applied != seen_poses_applied_ || scene_extras(app) != seen_extras_)) {
      seen_poses_applied_ = app.timeline.poses_applied;
      seen_extras_ = scene_extras(app);
      current_ = app.make_scene();
    }
    return;
  }
  const std::size_t had = current_stored_->size();
  const std::string label = app.edit_serial != seen_serial_ ? app.last_edit
                            : settings_edit                 ? "solver settings"
                            : stored.size() > had           ? "store configuration"
                            : stored.size() < had           ? "delete configuration"
                                                            : "stored configurations";
  undo_.push_back({resting_snapshot(), current_stored_, label, document_, state_});
  trim();
  redo_.clear();
  rebase(app, stored);
  document_ = document;
  state_ = ++last_state_;
}

bool History::move(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
                   std::deque<Step>& from, std::deque<Step>& to, const char* what,
                   const std::string& document) {
  // an edit of this same frame is a step of its own
  observe(app, stored, stored_serial, true, document);
  if (from.empty() || !started_) return false;
  Step step = std::move(from.back());
  from.pop_back();
  resting_q_ = app.joint_q;
  model_ = app.model;
  to.push_back({resting_snapshot(), current_stored_, step.label, document_, state_});
  if (!app.restore_scene(step.scene, std::string(what) + " " + step.label)) {
    to.pop_back();
    from.push_back(std::move(step));
    return false;
  }
  if (step.stored) stored = *step.stored;
  rebase(app, stored);
  document_ = step.document;
  state_ = step.state;
  return true;
}

void History::saved_as(const std::string& document) {
  for (std::deque<Step>* steps : {&undo_, &redo_})
    for (Step& step : *steps)
      if (step.document == document_) step.document = document;
  document_ = document;
}

bool History::undo(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
                   const std::string& document) {
  return move(app, stored, stored_serial, undo_, redo_, "undo", document);
}

bool History::redo(AppState& app, std::vector<StoredConfig>& stored, uint64_t stored_serial,
                   const std::string& document) {
  return move(app, stored, stored_serial, redo_, undo_, "redo", document);
}

}  // namespace ikwb::gui
