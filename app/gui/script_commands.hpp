// The script's commands as one table (script_commands.cpp): each command's name, argument
// counts, the check of its arguments when the script is parsed and the function that runs it.
// Private to the script runner (script.cpp, script_commands.cpp).
#pragma once

#include <string>
#include <vector>

#include "app/gui/script.hpp"

namespace ikwb::gui {

struct ScriptCommandSpec {
  const char* name;
  int min_args, max_args;  // argument counts after the name (max -1: any)
  // the numbers and keywords, when the script is parsed: "" when fine, else the problem (names
  // and files are checked when the command runs); nullptr: nothing to check
  std::string (*check)(const std::vector<std::string>& args);
  // runs the command; true when the frame's turn ends
  bool (*run)(ScriptRunner::Turn& turn);
};

// the command named `name`; nullptr when there is none
const ScriptCommandSpec* find_script_command(const std::string& name);
// the timeline's commands (script_timeline.cpp), which find_script_command also finds
const ScriptCommandSpec* find_timeline_script_command(const std::string& name);
// the obstacle command (script_obstacles.cpp), which find_script_command also finds
const ScriptCommandSpec* find_obstacle_script_command(const std::string& name);

// What a command's run function gets: this frame's host, the command, and the runner's input,
// drags and place in the script.
struct ScriptRunner::Turn {
  ScriptRunner& runner;
  ScriptHost& host;
  const ScriptCommand& command;

  const std::vector<std::string>& args() const { return command.args; }
  Ui& ui() const { return host.ui; }
  AppState& app() const { return host.ui.app; }
  Viewport3D& view() const { return host.ui.view; }

  // the command could not run: logged with its file and line; the run's exit status becomes 1
  void fail(const std::string& what) const { runner.fail(command, what, host.ui.app); }
  // the objective at index argument `s` (*index set), or nullptr and a failure naming it
  WorkbenchObjective* objective(const std::string& s, int* index) const;
  // an input file: relative to the folder of the command's own script (a demo's, for the
  // commands `demo` runs) or the script's when it exists there
  std::string input_path(const std::string& p) const;

  // the script chose a frame budget: the runner stops holding it at 0 (ScriptRunner::hold_budget)
  void choose_budget() const {
    runner.budget_chosen_ = true;
    host.ui.app.held_frame_budget_ms = -1;
  }
  // the held input: mouse position, buttons, keys
  InputState& input() const { return runner.input_; }
  // a key down for this frame only
  void tap(int key) const;
  // a press of `button` in the next frame, its release in the one after
  void click(int button) const;
  // gizmo drags, run one after the other
  void add_drag(const Drag& d) const { runner.drags_.push_back(d); }
  bool has_drags() const { return !runner.drags_.empty(); }
  // the first drag starts this frame, unless a key tapped this frame (a switch of the gizmo's
  // space) takes it
  void start_drags() const {
    if (runner.tapped_.empty()) runner.advance_drag(host);
  }
  // lets `frames` frames pass before the next command
  void wait(int frames) const { runner.wait_ = frames; }
  // runs `commands` next (a demo)
  void insert(const std::vector<ScriptCommand>& commands) const;
  // skips the rest of the script
  void stop() const { runner.pc_ = runner.commands_.size(); }
  // starts the script over from its first command, as it was loaded (the demos it ran are
  // read again when their commands come: the list does not grow pass after pass)
  void restart() const {
    runner.commands_ = runner.loaded_;
    runner.pc_ = 0;
    ++runner.repeats_;
  }
};

}  // namespace ikwb::gui
