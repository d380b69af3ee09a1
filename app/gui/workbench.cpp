// run_workbench: the command line, the application's start and the frame loop in Dear ImGui's
// order: poll events -> new frame -> script step (injects input) -> (while the timeline plays:
// playhead -> step) -> panels -> 3D view input -> sync point (edits -> IkProblem) -> bounded
// solve -> FK -> draw scene -> draw ImGui -> screenshot / dump -> swap. The window, the GL context
// and ImGui's backends are platform.hpp's.
#include "app/gui/workbench.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "app/cli/cli_args.hpp"
#include "app/cli/robot_args.hpp"
#include "app/cli/solver_args.hpp"
#include "app/gui/app_state.hpp"
#include "app/gui/diagnostics.hpp"
#include "app/gui/idle_frames.hpp"
#include "app/gui/input.hpp"
#include "app/gui/panels.hpp"
#include "app/gui/platform.hpp"
#include "app/gui/recent_files.hpp"
#include "app/gui/robot_catalog.hpp"
#include "app/gui/scene_files.hpp"
#include "app/gui/script.hpp"
#include "app/gui/session.hpp"
#include "app/gui/solver_driver.hpp"
#include "app/gui/state_dump.hpp"
#include "app/gui/theme.hpp"
#include "app/gui/timeline_edit.hpp"
#include "app/gui/viewport.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/render/screenshot.hpp"

namespace ikwb {

namespace {

using Clock = std::chrono::steady_clock;
using gui::AppState;

void declare_options(ArgParser& a) {
  a.add_positional("urdf", "URDF file to open, or a shipped robot's name (with its preset)", false);
  a.add_option("robot", "NAME", "open a shipped robot with its preset (panda, ur5e, ...)");
  a.add_option("scene", "FILE", "open a scene file");
  add_robot_options(a);
  a.add_option("script", "FILE", "replay an automation script (see README)");
  a.add_option("screenshot", "PNG", "save a screenshot of the last frame");
  a.add_option("dump-state", "JSON", "write the state of the last frame");
  a.add_option("frames", "N", "stop after N frames at most (a script ends the run earlier)");
  a.add_flag("stats", "print frame and solve time percentiles at exit");
  a.add_option("width", "PX", "window width (default 1280)");
  a.add_option("height", "PX", "window height (default 720)");
  a.add_option("msaa", "N", "MSAA samples (default 4; 0 on software OpenGL)");
  a.add_flag("no-vsync", "do not wait for the display between frames");
  a.add_flag("gl-debug", "request a debug OpenGL context (always on with --script)");
  a.add_flag("headless",
             "no window and no display server: render off screen through EGL (GPU or Mesa); "
             "needs --script or --frames");
  a.add_option("recovery-file", "FILE",
               "autosave here (default $IKWB_RECOVERY_FILE or ~/.local/state/ikwb/recovery.json; "
               "scripts autosave only with this or the variable)");
  a.add_option("autosave-seconds", "S", "seconds between autosaves (default 2)");
  a.add_flag("restore", "restore the recovery file without asking");
  a.add_flag("no-restore", "do not offer to restore the recovery file");
  add_solver_options(a);
}

// parses the command line and loads the script; returns an exit status, or -1 to go on
int parse_command_line(int argc, char** argv, ArgParser& args, gui::ScriptRunner& script) {
  int first = argc > 1 && std::string(argv[1]) == "gui" ? 2 : 1;
  try {
    args.parse(argc, argv, first);
    if (args.help_requested()) {
      std::printf("%s", args.usage().c_str());
      return 0;
    }
    // (X sizes windows in 16 bits: 99999 died of an X error; 16384 x 16384 opens under Xvfb)
    constexpr long long kLargestWindow = 16384;
    for (const char* side : {"width", "height"}) {
      const long long px = args.get_int(side, std::string(side) == "width" ? 1280 : 720);
      if (px < 64 || px > kLargestWindow)
        throw CliError(std::string("--") + side + " " + std::to_string(px) +
                       ": between 64 and 16384 pixels");
    }
    if (args.has("headless") && !args.has("script") && args.get_int("frames", -1) < 1)
      throw CliError("--headless needs --script or --frames: nothing else can end the run");
    args.get_int("frames", -1);
    args.get_int("msaa", 4);
    read_solver_options(args, gui::interactive_solver_settings());
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb gui: %s\n%s", e.what(), args.short_usage().c_str());
    return 2;
  }
  if (!args.has("script")) return -1;
  try {
    script.load(args.get("script"));
  } catch (const gui::ScriptError& e) {
    std::fprintf(stderr, "ikwb gui: %s\n", e.what());
    return 2;
  }
  return -1;
}

// A robot or scene file the command line names that is not there (neither a file nor a shipped
// robot's name), as "robot PATH" / "scene PATH"; "" when there is none. Reported when no window
// opens, before the window's error: without a display that would otherwise be the only one.
// --robot may name a catalogue robot: it is left to the loader.
std::string missing_input_file(const ArgParser& args) {
  std::error_code ec;
  if (args.has("scene") && !std::filesystem::exists(args.get("scene"), ec))
    return "scene " + args.get("scene");
  if (args.has("urdf") && !std::filesystem::exists(resolve_robot(args.get("urdf")), ec))
    return "robot " + args.get("urdf");
  return "";
}

gui::PlatformOptions platform_options(const ArgParser& args) {
  const bool scripted = args.has("script");
  gui::PlatformOptions o;
  o.width = int(args.get_int("width", 1280));
  o.height = int(args.get_int("height", 720));
  o.msaa = int(args.get_int("msaa", 4));
  o.msaa_asked = args.has("msaa");
  o.debug_context = scripted || args.has("gl-debug");
  o.vsync = !scripted && !args.has("no-vsync");
  o.headless = args.has("headless");
  return o;
}

// Opens the robot the workbench starts with: --scene, --robot, the URDF argument, else the
// default robot, unless the script opens one first (the default would be opened, logged and
// replaced before the first frame). Returns what the command line named when it did not load
// ("" when it did, or when the command line named nothing).
std::string open_initial_robot(const ArgParser& args, gui::Ui& ui, bool script_opens_robot) {
  AppState& app = ui.app;
  if (args.has("scene"))
    return gui::open_scene_file(ui, args.get("scene")) ? "" : "scene " + args.get("scene");
  if (args.has("robot"))
    return gui::open_robot(ui, args.get("robot")) ? "" : "robot " + args.get("robot");
  if (args.has("urdf")) {
    // a shipped robot's name opens it with its preset, as --robot does (`ikwb humanoid` opened
    // the bare robot, with nothing to drag); a file opens alone, and so does a name with
    // --floating-base, which asks for the robot file made floating
    const std::string& arg = args.get("urdf");
    if (resolve_robot(arg) != arg && !args.has("floating-base"))
      return gui::open_robot(ui, arg) ? "" : "robot " + arg;
    return app.load_robot(arg) ? "" : "robot " + arg;
  }
  if (script_opens_robot) return "";
  std::string name = gui::default_robot(ui.catalog);
  if (!name.empty()) gui::open_robot(ui, name);
  if (!app.model) app.warn("no robot found: open one with File > Open URDF");
  return "";
}

// the recovery file (--recovery-file, $IKWB_RECOVERY_FILE, else the default one; scripts
// autosave only when asked) and whether to restore it
void start_session(const ArgParser& args, gui::Ui& ui) {
  const bool scripted = args.has("script");
  std::string recovery = args.has("recovery-file") ? args.get("recovery-file")
                         : !scripted || std::getenv("IKWB_RECOVERY_FILE")
                             ? gui::Autosave::default_path()
                             : "";
  double seconds = 2.0;
  if (args.has("autosave-seconds"))
    seconds = std::max(std::atof(args.get("autosave-seconds").c_str()), 0.0);
  gui::session_start(ui, recovery, seconds,
                     args.has("no-restore") ? -1
                     : args.has("restore")  ? 1
                                            : 0);
}

// where each frame's input comes from: GLFW (through ImGui's backend), the script given on the
// command line, or a demo from the Demos menu until it ends
struct InputSource {
  gui::ScriptRunner script;
  bool scripted = false;
  bool demo_running = false;
  gui::InputState input, previous;
};

// what the script asks of this frame
struct ScriptRequests {
  std::string dump_path;  // a state dump at the end of the frame
  bool quit = false;
};

// this frame's input and its edges against the last frame's (before ImGui::NewFrame)
ScriptRequests read_input(InputSource& src, gui::Ui& ui, gui::Soak& soak) {
  AppState& app = ui.app;
  ImGuiIO& io = ImGui::GetIO();
  src.previous = src.input;
  if (src.scripted && !ui.demo_request.empty()) {
    app.warn("Demos: not while a script runs (the script command `demo " + ui.demo_request +
             "` runs it)");
    ui.demo_request.clear();
  }
  if (!src.scripted && !ui.demo_request.empty()) {
    gui::replace_scene(ui, "the demo " + ui.demo_request, [&] {
      try {
        src.script = gui::ScriptRunner();
        src.script.load(
            (std::filesystem::path(asset_dir()) / "demos" / (ui.demo_request + ".txt")).string());
        src.demo_running = true;
        app.info("demo " + ui.demo_request);
        return true;
      } catch (const gui::ScriptError& e) {
        app.error(e.what());
        return false;
      }
    });
    ui.demo_request.clear();
  }
  if (src.demo_running && src.script.finished()) {
    src.script.release_budget(app);
    src.demo_running = false;
  }
  ScriptRequests requests;
  if (src.scripted || src.demo_running) {
    gui::ScriptHost host{ui, src.input, soak, "", false};
    src.script.step(host);
    gui::apply_to_io(src.input, io);
    requests = {host.dump_path, host.quit};
  } else {
    gui::read_from_io(io, src.input);
  }
  gui::compute_edges(src.previous, src.input);
  return requests;
}

bool save_screenshot(const std::string& path, int w, int h, AppState& app) {
  std::vector<uint8_t> px = render::read_pixels_rgba(w, h);
  std::string error;
  if (!render::save_png(path, w, h, px, &error)) {
    app.error("screenshot: " + error);
    return false;
  }
  app.info("saved screenshot " + path);
  return true;
}

// this frame's screenshot and state dump (the script's, and --screenshot / --dump-state at the
// last frame), read from the back buffer before the swap
void write_outputs(const ArgParser& args, gui::Ui& ui, const gui::Soak& soak,
                   const gui::PlatformFrame& f, bool last, std::string dump_path) {
  AppState& app = ui.app;
  if (!ui.screenshot_path.empty()) {
    save_screenshot(ui.screenshot_path, f.framebuffer_w, f.framebuffer_h, app);
    ui.screenshot_path.clear();
  }
  if (last && args.has("screenshot"))
    save_screenshot(args.get("screenshot"), f.framebuffer_w, f.framebuffer_h, app);
  // the script's dump of this frame, and --dump-state at the last (a script's `dump` on its last
  // line was lost to --dump-state's)
  std::vector<std::string> paths;
  if (!dump_path.empty()) paths.push_back(dump_path);
  if (last && args.has("dump-state")) paths.push_back(args.get("dump-state"));
  if (paths.empty()) return;
  nlohmann::json dump = gui::make_state_dump(app, ui.view, f.framebuffer_w, f.framebuffer_h);
  gui::add_session_dump(ui, dump);
  gui::add_soak_dump(soak, dump);
  for (const std::string& path : paths) {
    std::string error;
    if (!gui::write_state_dump(path, dump, &error)) app.error("state dump: " + error);
  }
}

// Ctrl-C, a closed terminal (SIGHUP) or SIGTERM ends the loop as closing the window does, so
// the session's end (the recovery file, the settings) is written; a second such signal, while
// that runs, ends the process as the signal would
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_stop_signal = sig;
}

void catch_stop_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_stop_signal);
}

// the exit status after the loop: 1 when the script stopped early or failed; --stats prints the
// frame and solve times
int finish_run(const ArgParser& args, const InputSource& src, AppState& app, int status,
               int frames) {
  if (src.scripted) {
    // a looping script (`repeat`) runs until it is stopped
    const bool looping = src.script.repeats() > 0;
    if (looping && !src.script.finished())
      app.info("looping script stopped after " + std::to_string(src.script.repeats()) +
               " passes, " + std::to_string(frames) + " frames");
    else if (!src.script.finished())
      app.error("script stopped at " + src.script.path() + ":" + std::to_string(src.script.line()) +
                " after " + std::to_string(frames) + " frames");
    if ((!looping && !src.script.finished()) || !src.script.failures().empty() ||
        src.script.errors_after_last_step(app))
      status = std::max(status, 1);
  }
  if (args.has("stats")) {
    std::printf("%s\n", gui::format_percentiles("frame_ms", app.stats.frame()).c_str());
    std::printf("%s\n", gui::format_percentiles("solve_ms", app.stats.solve()).c_str());
  }
  return status;
}

}  // namespace

int run_workbench(int argc, char** argv) {
  ArgParser args("ikwb gui", "The interactive IK workbench: drag targets, watch the solver.");
  declare_options(args);
  InputSource source;
  if (int code = parse_command_line(argc, argv, args, source.script); code >= 0) return code;
  source.scripted = args.has("script");
  const int frame_limit = int(args.get_int("frames", -1));

  // window, GL context, ImGui with its backends, and the theme
  gui::Platform platform;
  std::string error;
  if (!platform.init(platform_options(args), &error)) {
    if (const std::string missing = missing_input_file(args); !missing.empty())
      std::fprintf(stderr, "ikwb gui: could not open %s: no such file\n", missing.c_str());
    std::fprintf(stderr, "ikwb gui: %s\n", error.c_str());
    return 1;
  }
  const float font_px = gui::apply_theme(15.0f);

  // the application: state, 3D view, solver, session, the initial robot
  AppState app;
  app.urdf_options = read_robot_options(args);
  app.urdf_options.load_meshes = true;
  gui::Viewport3D view;
  gui::SolverDriver driver;
  gui::Session session;
  gui::Soak soak;
  gui::Ui ui(app, view);
  ui.catalog = gui::robot_catalog();
  ui.script_mode = source.scripted;
  ui.session = &session;
  int status = 0;
  if (!view.init(&error)) {
    std::fprintf(stderr, "ikwb gui: renderer: %s\n", error.c_str());
    status = 1;
  }
  driver.init(app);
  // an unattended run (a script, --frames) ends when the command line's robot or scene did not
  // load; an interactive one shows the error and goes on
  std::string not_loaded =
      open_initial_robot(args, ui, source.scripted && source.script.opens_robot_first());
  if (!not_loaded.empty() && (source.scripted || frame_limit > 0)) {
    std::fprintf(stderr, "ikwb gui: the %s did not load; stopping\n", not_loaded.c_str());
    status = 1;
  }
  app.settings = read_solver_options(args, app.settings);  // the command line's win over a preset's
  if (status == 0) start_session(args, ui);

  std::string titled;  // the window's title
  int frames = 0;
  Clock::time_point last_start{};
  bool last_waited = false;  // the last frame waited for events: its time is not a frame's
  gui::IdleFrames idle;
  catch_stop_signals();
  while (status == 0 && !platform.should_close() && g_stop_signal == 0) {
    Clock::time_point start = Clock::now();
    if (frames > 0 && !last_waited)
      app.stats.add_frame_ms(std::chrono::duration<double, std::milli>(start - last_start).count());
    last_start = start;
    ++app.frame;

    // events (waited for while the window is left alone), the layout, and this frame's input
    // from GLFW or the script
    gui::PlatformFrame f = platform.new_frame(idle.next_wait());
    last_waited = f.waited;
    for (const std::string& dropped : platform.take_dropped())
      gui::replace_scene(ui, dropped, [&] { return gui::open_any_file(ui, dropped); });
    app.hover = {};
    app.held_joint = -1;
    ui.layout.show_timeline = app.timeline.show_panel && app.model;
    gui::compute_layout(ui.layout, float(f.window_w), float(f.window_h),
                        font_px + 2.0f * ImGui::GetStyle().FramePadding.y, view.visuals.options);
    view.rect = ui.layout.view;
    ScriptRequests requests = read_input(source, ui, soak);
    gui::soak_frame_begin(soak, app);

    // UI, then the one sync point, the bounded solve and FK. While the timeline plays, its
    // playhead moves the robot first and the step (which then only evaluates: the solver waits)
    // runs before the panels too, so they, the view's labels and the dump show the same pose; the
    // step after the panels takes their edits
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();
    if (gui::timeline_advance(app, io.DeltaTime)) driver.step_frame(app);
    gui::draw_panels(ui);
    view.sync_model(app);
    view.handle_input(app, source.input, io.WantCaptureMouse, io.WantCaptureKeyboard);
    gui::timeline_frame(app, view.gizmo.dragging() || app.held_joint >= 0);
    app.want_alternatives = view.visuals.options.ghosts;
    driver.step_frame(app);
    gui::session_frame_end(ui,
                           view.gizmo.dragging() || ImGui::IsAnyItemActive() || soak.dragging());
    gui::soak_frame_end(soak, app);
    view.visuals.record(app);
    view.draw_ui(app);
    ImGui::Render();
    idle.frame_done({!source.scripted && frame_limit <= 0 && !soak.active, app.solve.ran,
                     app.timeline.playing,
                     view.gizmo.dragging() || ImGui::IsAnyItemActive() || ImGui::IsAnyMouseDown() ||
                         app.held_joint >= 0,
                     f.woke});

    // the script's end, --frames (a cap) or File > Quit end the run
    ++frames;
    const bool last = ui.quit || requests.quit || (frame_limit > 0 && frames >= frame_limit) ||
                      (source.scripted && source.script.finished());

    // draw: the 3D view, then ImGui on top (nothing while minimised); this frame's outputs; swap
    platform.clear(f);
    if (f.visible()) view.render(app, f.framebuffer_h, f.pixel_scale());
    platform.render(f);
    write_outputs(args, ui, soak, f, last, requests.dump_path);
    if (std::string title = gui::window_title(ui); title != titled) {
      titled = std::move(title);
      platform.set_title(titled);
    }
    platform.present();
    if (last) break;
  }

  status = finish_run(args, source, app, status, frames);
  const gui::ShutdownOutcome kept = gui::session_shutdown(ui);
  if (g_stop_signal != 0) {
    std::fprintf(stderr, "ikwb gui: stopped by signal %d, closed as the window closes: %s\n",
                 int(g_stop_signal), kept.what.c_str());
    status = 128 + int(g_stop_signal);  // as the signal's own end reports it
  } else if (kept.failed) {
    std::fprintf(stderr, "ikwb gui: %s\n", kept.what.c_str());
  }
  view.shutdown();
  platform.shutdown();
  return status;
}

}  // namespace ikwb
