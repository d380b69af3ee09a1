// run_workbench: command line, window and GL / ImGui set-up, and the frame loop in Dear ImGui's
// order: poll events -> new frame -> script step (injects input) -> panels -> 3D view input ->
// sync point (edits -> IkProblem) -> bounded solve -> FK -> draw scene -> draw ImGui ->
// screenshot / dump -> swap.
#include "app/gui/workbench.hpp"

#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "app/cli/cli_args.hpp"
#include "app/cli/solver_args.hpp"
#include "app/gui/app_state.hpp"
#include "app/gui/diagnostics.hpp"
#include "app/gui/input.hpp"
#include "app/gui/panels.hpp"
#include "app/gui/robot_catalog.hpp"
#include "app/gui/scene_files.hpp"
#include "app/gui/script.hpp"
#include "app/gui/session.hpp"
#include "app/gui/solver_driver.hpp"
#include "app/gui/state_dump.hpp"
#include "app/gui/theme.hpp"
#include "app/gui/viewport.hpp"
#include "engine/core/robot_path.hpp"
#include "engine/render/screenshot.hpp"

namespace ikwb {

namespace {

using Clock = std::chrono::steady_clock;
using gui::AppState;

void declare_options(ArgParser& a) {
  a.add_positional("urdf", "URDF file (or a shipped robot's name) to open", false);
  a.add_option("robot", "NAME", "open a shipped robot with its preset (panda, ur5e, ...)");
  a.add_option("scene", "FILE", "open a scene file");
  a.add_option("package-path", "DIR", "folder searched for package:// meshes", true);
  a.add_flag("floating-base", "give the URDF's root link a free joint");
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
  a.add_option("recovery-file", "FILE",
               "autosave here (default $IKWB_RECOVERY_FILE or ~/.local/state/ikwb/recovery.json; "
               "scripts autosave only with this or the variable)");
  a.add_option("autosave-seconds", "S", "seconds between autosaves (default 2)");
  a.add_flag("restore", "restore the recovery file without asking");
  a.add_flag("no-restore", "do not offer to restore the recovery file");
  add_solver_options(a);
}

void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "ikwb: GLFW error %d: %s\n", code, text);
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
    if (args.get_int("width", 1280) < 64 || args.get_int("height", 720) < 64)
      throw CliError("--width / --height: at least 64 pixels");
    args.get_int("frames", -1);
    args.get_int("msaa", 4);
    read_solver_options(args, gui::interactive_solver_settings());
  } catch (const CliError& e) {
    std::fprintf(stderr, "ikwb gui: %s\n%s", e.what(), args.usage().c_str());
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

GLFWwindow* open_window(int width, int height, int samples, bool debug) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debug ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SAMPLES, samples);
  GLFWwindow* w = glfwCreateWindow(width, height, "IK Workbench", nullptr, nullptr);
  if (w) glfwMakeContextCurrent(w);
  return w;
}

// Mesa's CPU rasterisers (Xvfb, CI): multisampling costs several times the frame
bool software_renderer() {
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  std::string s = r ? r : "";
  return s.find("llvmpipe") != std::string::npos || s.find("softpipe") != std::string::npos ||
         s.find("swrast") != std::string::npos;
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

// the robot the workbench opens with
void open_initial_robot(const ArgParser& args, gui::Ui& ui) {
  AppState& app = ui.app;
  if (args.has("scene")) {
    gui::open_scene_file(ui, args.get("scene"));
  } else if (args.has("robot")) {
    gui::open_robot(ui, args.get("robot"));
  } else if (args.has("urdf")) {
    app.load_robot(args.get("urdf"));
  } else {
    std::string name = gui::default_robot(ui.catalog);
    if (!name.empty()) gui::open_robot(ui, name);
  }
  if (!app.model && !args.has("urdf") && !args.has("robot") && !args.has("scene"))
    app.warn("no robot found: open one with File > Open URDF");
}

// glfwInit, retried for up to a second when a display is named: an X server that has just
// started, or is busy accepting other clients, can refuse a connection for a moment
bool init_glfw() {
  const char* display = std::getenv("DISPLAY");
  const int attempts = display && *display ? 6 : 1;
  for (int a = 0; a < attempts; ++a) {
    if (glfwInit()) return true;
    if (a + 1 < attempts) {
      std::fprintf(stderr, "ikwb gui: display %s not ready, retrying\n", display);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  return false;
}

}  // namespace

int run_workbench(int argc, char** argv) {
  // ---- command line -----------------------------------------------------------------------
  ArgParser args("ikwb gui", "The interactive IK workbench: drag targets, watch the solver.");
  declare_options(args);
  gui::ScriptRunner script;
  if (int code = parse_command_line(argc, argv, args, script); code >= 0) return code;
  const bool scripted = args.has("script");
  const int width = int(args.get_int("width", 1280)), height = int(args.get_int("height", 720));
  const int frame_limit = int(args.get_int("frames", -1));

  // ---- window, GL context, ImGui ----------------------------------------------------------
  glfwSetErrorCallback(glfw_error);
  if (!init_glfw()) {
    std::fprintf(stderr, "ikwb gui: cannot open a window (no display? try xvfb-run -a)\n");
    return 1;
  }
  const bool debug = scripted || args.has("gl-debug");
  int msaa = std::max(int(args.get_int("msaa", 4)), 0);
  GLFWwindow* window = open_window(width, height, msaa, debug);
  if (window && msaa > 0 && !args.has("msaa") && software_renderer()) {
    glfwDestroyWindow(window);
    msaa = 0;
    window = open_window(width, height, msaa, debug);
  }
  if (!window) {
    std::fprintf(stderr, "ikwb gui: no OpenGL 3.3 core context\n");
    glfwTerminate();
    return 1;
  }
  glfwSwapInterval(scripted || args.has("no-vsync") ? 0 : 1);
  if (msaa > 0) glEnable(GL_MULTISAMPLE);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  const float font_px = gui::apply_theme(15.0f);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  // ---- application ------------------------------------------------------------------------
  AppState app;
  app.urdf_options.package_paths = args.get_all("package-path");
  app.urdf_options.floating_base = args.has("floating-base");
  gui::Viewport3D view;
  gui::SolverDriver driver;
  gui::Ui ui(app, view);
  ui.catalog = gui::robot_catalog();
  ui.script_mode = scripted;
  int status = 0;
  std::string error;
  if (!view.init(&error)) {
    std::fprintf(stderr, "ikwb gui: renderer: %s\n", error.c_str());
    status = 1;
  }
  driver.init(app);
  gui::Session session;
  ui.session = &session;
  gui::Soak soak;
  open_initial_robot(args, ui);
  // command line solver options win over a preset's
  app.settings = read_solver_options(args, app.settings);
  {
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

  // ---- frame loop -------------------------------------------------------------------------
  gui::InputState input, previous;
  uint64_t titled_version = 0;
  bool demo_running = false;  // a demo from the Demos menu drives the input until it ends
  int frames = 0;
  Clock::time_point last_start{};
  while (status == 0 && !glfwWindowShouldClose(window)) {
    Clock::time_point start = Clock::now();
    if (frames > 0)
      app.stats.add_frame_ms(std::chrono::duration<double, std::milli>(start - last_start).count());
    last_start = start;
    ++app.frame;

    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    app.hover = {};
    app.held_joint = -1;
    int win_w, win_h, fb_w, fb_h;
    glfwGetWindowSize(window, &win_w, &win_h);
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    gui::compute_layout(ui.layout, float(win_w), float(win_h),
                        font_px + 2.0f * ImGui::GetStyle().FramePadding.y);
    view.rect = ui.layout.view;

    // input: from GLFW (through ImGui's backend), or from the script
    previous = input;
    std::string dump_path;
    bool script_quit = false;
    if (!scripted && !ui.demo_request.empty()) {
      try {
        script = gui::ScriptRunner();
        script.load(
            (std::filesystem::path(asset_dir()) / "demos" / (ui.demo_request + ".txt")).string());
        demo_running = true;
        app.info("demo " + ui.demo_request);
      } catch (const gui::ScriptError& e) {
        app.error(e.what());
      }
      ui.demo_request.clear();
    }
    if (demo_running && script.finished()) demo_running = false;
    if (scripted || demo_running) {
      gui::ScriptHost host{ui, input, soak, "", false};
      script.step(host);
      gui::apply_to_io(input, io);
      dump_path = host.dump_path;
      script_quit = host.quit;
    } else {
      gui::read_from_io(io, input);
    }
    gui::compute_edges(previous, input);
    gui::soak_frame_begin(soak, app);

    // UI, then the one sync point, the bounded solve and FK
    ImGui::NewFrame();
    gui::draw_panels(ui);
    view.sync_model(app);
    view.handle_input(app, input, io.WantCaptureMouse, io.WantCaptureKeyboard);
    app.sync();
    driver.step(app);
    app.update_fk();
    app.update_objective_status();
    gui::session_frame_end(ui,
                           view.gizmo.dragging() || ImGui::IsAnyItemActive() || soak.dragging());
    gui::soak_frame_end(soak, app);
    view.visuals.record(app);
    view.draw_ui(app);
    ImGui::Render();

    ++frames;
    // the script's end, --frames (a cap) or File > Quit end the run
    const bool last = ui.quit || script_quit || (frame_limit > 0 && frames >= frame_limit) ||
                      (scripted && script.finished());

    // draw: the 3D view, then ImGui on top (nothing while minimised)
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.085f, 0.095f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    if (fb_w > 0 && fb_h > 0 && win_w > 0) {
      view.render(app, fb_h, float(fb_w) / float(win_w));
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }

    // this frame's outputs, read before the swap
    if (!ui.screenshot_path.empty()) {
      save_screenshot(ui.screenshot_path, fb_w, fb_h, app);
      ui.screenshot_path.clear();
    }
    if (last && args.has("screenshot")) save_screenshot(args.get("screenshot"), fb_w, fb_h, app);
    if (last && args.has("dump-state")) dump_path = args.get("dump-state");
    if (!dump_path.empty()) {
      nlohmann::json dump = gui::make_state_dump(app, view, fb_w, fb_h);
      gui::add_session_dump(ui, dump);
      gui::add_soak_dump(soak, dump);
      if (!gui::write_state_dump(dump_path, dump, &error)) app.error("state dump: " + error);
    }
    if (app.model_version != titled_version) {
      titled_version = app.model_version;
      glfwSetWindowTitle(window, ("IK Workbench - " + app.robot_title).c_str());
    }
    glfwSwapBuffers(window);
    if (last) break;
  }

  // ---- report and clean up ----------------------------------------------------------------
  if (scripted) {
    if (!script.finished())
      app.error("script stopped at " + script.path() + ":" + std::to_string(script.line()) +
                " after " + std::to_string(frames) + " frames");
    if (!script.finished() || !script.failures().empty()) status = std::max(status, 1);
  }
  if (args.has("stats")) {
    std::printf("%s\n", gui::format_percentiles("frame_ms", app.stats.frame()).c_str());
    std::printf("%s\n", gui::format_percentiles("solve_ms", app.stats.solve()).c_str());
  }
  gui::session_shutdown(ui);
  view.shutdown();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return status;
}

}  // namespace ikwb
