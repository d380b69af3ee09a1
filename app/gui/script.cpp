// Automation scripts: parsing, and replaying commands at the start of each frame. What each
// command does is in script_commands.cpp (one table), the gizmo drags in script_drag.cpp, value
// parsing in script_args.cpp.
//
// [SECTION] Parsing
// [SECTION] Running
// [SECTION] What a command's run function may touch
#include "app/gui/script.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/script_args.hpp"
#include "app/gui/script_commands.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/core/text_file.hpp"

namespace ikwb::gui {

// ---------------------------------------------------------------------------------------------
// [SECTION] Parsing
// ---------------------------------------------------------------------------------------------

// the most lines a script's syntax errors list (the rest are counted)
constexpr int kListedSyntaxErrors = 20;

std::vector<ScriptCommand> parse_script(const std::string& text, const std::string& source) {
  std::vector<ScriptCommand> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  // every bad line at once, one a line (a review fixed three, one run each)
  std::vector<std::string> errors;
  while (std::getline(in, line)) {
    ++n;
    // an editor's UTF-8 byte order mark, unseen, read as part of the first command
    if (n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    std::vector<std::string> a = tokenize(line);
    if (a.empty()) continue;
    const std::string where = source + ":" + std::to_string(n) + ": ";
    const ScriptCommandSpec* spec = find_script_command(a[0]);
    if (!spec) {
      errors.push_back(where + "unknown command '" + a[0] + "'");
      continue;
    }
    int count = int(a.size()) - 1;
    if (count < spec->min_args || (spec->max_args >= 0 && count > spec->max_args)) {
      errors.push_back(where + "'" + a[0] + "' takes " + std::to_string(spec->min_args) +
                       (spec->max_args == spec->min_args ? ""
                        : spec->max_args < 0             ? " or more"
                                             : " to " + std::to_string(spec->max_args)) +
                       " arguments, got " + std::to_string(count));
      continue;
    }
    std::string error = spec->check ? spec->check(a) : "";
    if (!error.empty()) {
      errors.push_back(where + a[0] + ": " + error);
      continue;
    }
    out.push_back({n, a, std::filesystem::path(source).parent_path().string()});
  }
  if (errors.empty()) return out;
  std::string all;
  for (int i = 0; i < int(errors.size()) && i < kListedSyntaxErrors; ++i)
    all += (i ? "\n" : "") + errors[i];
  if (int(errors.size()) > kListedSyntaxErrors)
    all += "\n(" + std::to_string(errors.size() - kListedSyntaxErrors) + " more lines with errors)";
  throw ScriptError(all);
}

void ScriptRunner::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  if (!in) throw ScriptError(path + ": cannot read the script");
  if (!read_text_stream(in, text))
    throw ScriptError(path + (in.bad() ? ": read error" : ": larger than 1 GiB, not a script"));
  commands_ = parse_script(text, path);
  loaded_ = commands_;
  path_ = path;
  base_dir_ = std::filesystem::path(path).parent_path().string();
}

bool ScriptRunner::finished() const {
  return pc_ >= commands_.size() && drags_.empty() && wait_ == 0 && queue_.empty();
}

namespace {

// the commands open a robot before anything else: their first does, or is a shipped demo whose
// first does (a trade show's `demo quadruped_show` then `repeat` opened the default Panda first);
// `camera` commands before it wait for that robot (a camera set on the default robot lost its
// distance and target to the framing of the script's own)
bool first_opens_robot(const std::vector<ScriptCommand>& commands, int depth = 0) {
  const auto first = std::find_if(commands.begin(), commands.end(),
                                  [](const ScriptCommand& c) { return c.args[0] != "camera"; });
  if (first == commands.end()) return false;
  const std::string& name = first->args[0];
  if (name == "demo" && first->args.size() > 1 && depth < 4) {
    std::ifstream in(std::filesystem::path(asset_dir()) / "demos" / (first->args[1] + ".txt"));
    std::stringstream text;
    text << in.rdbuf();
    try {
      return in && first_opens_robot(parse_script(text.str(), first->args[1]), depth + 1);
    } catch (const ScriptError&) {
      return false;  // the demo's own error comes when it runs
    }
  }
  return name == "robot" || name == "load" || name == "open_urdf" || name == "scene" ||
         name == "open_scene";
}

}  // namespace

bool ScriptRunner::opens_robot_first() const {
  return first_opens_robot(commands_);
}

int ScriptRunner::line() const {
  // a wait, a drag or queued actions still running: the command that started them
  if (wait_ > 0 || !drags_.empty() || !queue_.empty()) return running_line_;
  return pc_ < commands_.size() ? commands_[pc_].line : 0;
}

void ScriptRunner::fail(int line, const std::string& what, AppState& app) {
  std::string msg = path_ + ":" + std::to_string(line) + ": " + what;
  // the command's own error says why (the banner shows this failure, the newest error); one
  // that begins as the failure does takes its place ("save_scene: scene not saved (the old file
  // is unchanged): ...", not "scene not saved (scene not saved (...")
  const std::size_t colon = what.rfind(": ");
  const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
  if (app.errors_logged > errors_seen_)
    for (auto it = app.messages.rbegin(); it != app.messages.rend(); ++it)
      if (it->level == Message::kError) {
        if (it->text.rfind(reason, 0) == 0)
          msg.replace(msg.size() - reason.size(), reason.size(), it->text);
        else
          msg += " (" + it->text + ")";
        break;
      }
  failures_.push_back(msg);
  app.error("script: " + msg);
  errors_seen_ = app.errors_logged;
}

void ScriptRunner::collect_errors(const AppState& app) {
  if (app.errors_logged <= errors_seen_) return;
  // the newest errors, in the order they were logged (the messages keep the recent ones)
  std::vector<std::string> texts;
  std::size_t left = app.errors_logged - errors_seen_;
  for (auto it = app.messages.rbegin(); it != app.messages.rend() && left > 0; ++it)
    if (it->level == Message::kError) {
      texts.insert(texts.begin(), it->text);
      --left;
    }
  for (const std::string& t : texts)
    failures_.push_back(path_ + ":" + std::to_string(running_line_) + ": " + t);
  errors_seen_ = app.errors_logged;
}

void ScriptRunner::fail(const ScriptCommand& c, const std::string& what, AppState& app) {
  fail(c.line, c.args[0] + ": " + what, app);
}

std::string ScriptRunner::input_path(const std::string& p) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::path(p).is_relative() && !base_dir_.empty() && fs::exists(fs::path(base_dir_) / p, ec))
    return (fs::path(base_dir_) / p).string();
  return p;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Running
// ---------------------------------------------------------------------------------------------

void ScriptRunner::step(ScriptHost& host) {
  // errors the app logged since the last step (a robot that did not load, an edit undone, a
  // file not written) fail the run like a command that could not run
  collect_errors(host.ui.app);
  // one-frame input ends
  input_.wheel = 0;
  for (int k : tapped_) input_.keys[k] = false;
  if (!tapped_.empty()) input_.ctrl = input_.shift = input_.alt = false;
  tapped_.clear();

  bool yielded = false;
  if (!queue_.empty()) {
    queue_.front()(input_);
    queue_.erase(queue_.begin());
    yielded = true;
  } else if (wait_ > 0 && --wait_ > 0) {
    yielded = true;
  } else if (!drags_.empty()) {
    yielded = advance_drag(host);
  }
  while (!yielded && drags_.empty() && pc_ < commands_.size()) {
    const ScriptCommand& c = commands_[pc_++];
    running_line_ = c.line;
    yielded = execute(host, c);
  }
  // a command's several drags (drag_pose) are one undo step: the group closes in the frame
  // that releases the last one, so its release is the group's edit
  host.ui.app.edit_group_open = drags_.size() > 1 || (grouped_drags_ && !drags_.empty());
  grouped_drags_ = host.ui.app.edit_group_open;
  hold_budget(host.ui.app);
  host.input = input_;
}

void ScriptRunner::hold_budget(AppState& app) {
  if (budget_chosen_) return;
  if (app.frame_budget_ms != 0) app.held_frame_budget_ms = app.frame_budget_ms;
  app.frame_budget_ms = 0;
}

void ScriptRunner::release_budget(AppState& app) {
  if (!budget_chosen_ && app.held_frame_budget_ms >= 0)
    app.frame_budget_ms = app.held_frame_budget_ms;
  app.held_frame_budget_ms = -1;
}

bool ScriptRunner::execute(ScriptHost& host, const ScriptCommand& c) {
  const ScriptCommandSpec* spec = find_script_command(c.args[0]);
  if (!spec) {
    fail(c, "not handled", host.ui.app);
    return false;
  }
  Turn turn{*this, host, c};
  return spec->run(turn);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] What a command's run function may touch
// ---------------------------------------------------------------------------------------------

WorkbenchObjective* ScriptRunner::Turn::objective(const std::string& s, int* index) const {
  AppState& app = host.ui.app;
  *index = 0;
  index_value(s, index);
  if (*index < int(app.objectives.size())) return &app.objectives[*index];
  fail("no objective " + s + " (there are " + std::to_string(app.objectives.size()) + ")");
  return nullptr;
}

std::string ScriptRunner::Turn::input_path(const std::string& p) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::path(p).is_relative() && !command.folder.empty() &&
      fs::exists(fs::path(command.folder) / p, ec))
    return (fs::path(command.folder) / p).string();
  return runner.input_path(p);
}

void ScriptRunner::Turn::tap(int key) const {
  runner.input_.keys[key] = true;
  runner.tapped_.push_back(key);
}

void ScriptRunner::Turn::click(int button) const {
  runner.queue_.push_back([button](InputState& in) { in.down[button] = true; });
  runner.queue_.push_back([button](InputState& in) { in.down[button] = false; });
}

void ScriptRunner::Turn::insert(const std::vector<ScriptCommand>& commands) const {
  runner.commands_.insert(runner.commands_.begin() + std::ptrdiff_t(runner.pc_), commands.begin(),
                          commands.end());
}

}  // namespace ikwb::gui
