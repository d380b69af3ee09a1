// Automation scripts: a line format of UI actions that the workbench replays through the same
// paths a person uses. Mouse and keyboard actions (drags of gizmo handles, clicks, key presses)
// become InputState that the frame loop hands to ImGui and the 3D view exactly as GLFW input
// would be; menu actions call the menu's own functions. The format is documented in README.md
// ("Automation scripts") with an example in assets/scripts/.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "app/gui/input.hpp"
#include "app/gui/panels.hpp"

namespace ikwb::gui {

// A script that cannot be parsed; the message names the file and line.
class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScriptCommand {
  int line = 0;                   // 1-based line in the file
  std::vector<std::string> args;  // args[0] is the command name
  std::string folder;             // the file's folder: its relative input files are there
};

// Parses a script (source names it in errors): checks every command's name, argument count and
// numbers; throws ScriptError naming the file and line.
std::vector<ScriptCommand> parse_script(const std::string& text, const std::string& source);

struct Soak;  // diagnostics.hpp

// What the runner may touch in one frame.
struct ScriptHost {
  Ui& ui;
  InputState& input;      // this frame's input (written by the runner)
  Soak& soak;             // the soak run (the soak command)
  std::string dump_path;  // a state dump to write at the end of this frame
  bool quit = false;      // the script asked to quit
};

class ScriptRunner {
 public:
  // reads and parses the file; throws ScriptError
  void load(const std::string& path);
  // Executes commands at the start of a frame, before ImGui::NewFrame: immediate commands run
  // back to back; waits, input actions, screenshots and dumps end the frame's turn.
  void step(ScriptHost& host);
  bool finished() const;
  // times `repeat` started the script over (a looping demo never finishes: a run it is in ends
  // at --frames, or when the window closes, without failing)
  int repeats() const { return repeats_; }
  // whether the script's first command other than `camera` opens a robot or a scene (robot,
  // load, open_urdf, scene, open_scene): the workbench then opens no default robot before it
  bool opens_robot_first() const;
  // gives back the frame budget held while the script ran (the host calls it once the script
  // has finished, after its last frame)
  void release_budget(AppState& app);
  // expectations that failed and commands that could not run (the run exits with status 1)
  const std::vector<std::string>& failures() const { return failures_; }
  // the app logged errors after the last step (the run's last frame: a dump or screenshot not
  // written); they fail the run too
  bool errors_after_last_step(const AppState& app) const {
    return app.errors_logged > errors_seen_;
  }
  const std::string& path() const { return path_; }
  int line() const;  // line of the command running (a wait, a drag) or next (0 when finished)

  // what a command's run function gets (script_commands.hpp)
  struct Turn;
  // a gizmo drag in progress (drag, drag_pose)
  struct Drag {
    int objective = -1;
    std::string obstacle;  // the named obstacle's gizmo instead of an objective's
    render::GizmoHandle handle = render::GizmoHandle::kNone;
    glm::dvec3 move{0.0};     // translate handles: world displacement
    bool along_axis = false;  // move.x is a distance along the axis handle's own axis
    double angle = 0;         // rings: radians about the ring's axis
    int frames = 30;
    bool snap = false;
    int phase = 0;  // 0 select, 1 hover, 2 press, 3.. move, then release
    int line = 0;
    // set when pressing: the grabbed world point and the path's frame
    glm::vec2 p0{0.0f};
    glm::vec3 grab{0.0f}, centre{0.0f}, axis{0.0f};
    bool ring_tangent = false;  // ring seen edge-on: move along its screen tangent
    glm::vec2 tangent_px{0.0f};
  };

 private:
  // runs one command; returns true when the frame's turn ends
  bool execute(ScriptHost& host, const ScriptCommand& c);
  // advances the active drag by one frame; false when it has finished
  bool advance_drag(ScriptHost& host);
  glm::vec2 drag_point(const Viewport3D& view, double s) const;
  void fail(const ScriptCommand& c, const std::string& what, AppState& app);
  void fail(int line, const std::string& what, AppState& app);
  // counts the errors the app logged since the last look as failures of the running command
  void collect_errors(const AppState& app);
  std::string input_path(const std::string& p) const;

  std::vector<ScriptCommand> commands_;
  std::vector<ScriptCommand> loaded_;  // the script as loaded (`repeat` starts it over)
  int repeats_ = 0;
  std::vector<Drag> drags_;     // queued drags of the current command (drag_pose has several)
  bool grouped_drags_ = false;  // the queued drags are one undo step (AppState::edit_group_open)
  std::string path_, base_dir_;
  std::size_t pc_ = 0;
  int running_line_ = 0;  // the line of the command last started
  int wait_ = 0;
  InputState input_;         // persistent: mouse position, held buttons and keys
  std::vector<int> tapped_;  // keys to release at the next frame
  // input changes for the coming frames, one per frame (the rest of a click)
  std::vector<std::function<void(InputState&)>> queue_;
  std::vector<std::string> failures_;
  std::size_t errors_seen_ = 0;  // AppState::errors_logged already counted
  // A script counts frames (`wait K` then `expect ...`), so until it chooses a frame budget
  // (`frame_budget`) its frames solve in full: every step holds the budget at 0, whatever a
  // scene or preset it opened says, and release_budget gives the workbench's back
  // (AppState::held_frame_budget_ms keeps the budget held)
  void hold_budget(AppState& app);
  bool budget_chosen_ = false;
};

}  // namespace ikwb::gui
