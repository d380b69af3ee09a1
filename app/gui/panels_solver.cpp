// Solver panel: this frame's solve (state, time, iterations, kept seed) with the frame rate and
// a frame time plot; the backend (CUDA only when usable, with the reason otherwise), the common
// settings with the workbench's frame step and frame budget (and how the last solve spent the
// budget), and under "More settings" every other one, by group. Labels, ranges and tooltips
// come from the settings table (solver/settings.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "app/gui/panels.hpp"
#include "solver/settings.hpp"

namespace ikwb::gui {

namespace {

void row_label(const char* text) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(text);
  ImGui::SameLine(120);
  ImGui::SetNextItemWidth(-1);
}

// a setting's widget: a checkbox, a combo of its names, or a slider over its typical range
// (ctrl+click types any value; it is clamped to the valid range), with its help as tooltip
void setting_widget(const SettingInfo& info, SolverSettings& s) {
  const std::string id = std::string("##") + info.key;
  std::visit(
      [&](auto m) {
        using T = std::remove_reference_t<decltype(s.*m)>;
        const ImGuiSliderFlags flags = info.log_scale ? ImGuiSliderFlags_Logarithmic : 0;
        if constexpr (!std::is_same_v<T, bool>) row_label(info.label);
        if constexpr (std::is_same_v<T, bool>) {
          ImGui::Checkbox(info.label, &(s.*m));
        } else if constexpr (std::is_enum_v<T>) {
          if (ImGui::BeginCombo(id.c_str(), to_string(s.*m))) {
            for (const std::string& name : info.choices())
              if (ImGui::Selectable(name.c_str(), name == to_string(s.*m))) parse(name, &(s.*m));
            ImGui::EndCombo();
          }
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          ImGui::InputScalar(id.c_str(), ImGuiDataType_U64, &(s.*m));
        } else if constexpr (std::is_same_v<T, int>) {
          if (ImGui::SliderInt(id.c_str(), &(s.*m), int(info.typical_min), int(info.typical_max),
                               "%d", flags))
            s.*m = std::clamp(s.*m, int(info.min), int(info.max));
        } else {
          double v = s.*m * info.scale;  // in the user's unit
          if (ImGui::SliderScalar(id.c_str(), ImGuiDataType_Double, &v, &info.typical_min,
                                  &info.typical_max, info.log_scale ? "%.1e" : "%.2f", flags))
            s.*m = std::clamp(v, info.min, info.max) / info.scale;
        }
      },
      info.member);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.help);
}

void backend_widget(SolverSettings& s, const SolveStatus& st) {
  row_label(setting_for(&SolverSettings::backend).label);
  if (ImGui::BeginCombo("##backend", to_string(s.backend))) {
    if (ImGui::Selectable("cpu", s.backend == Backend::kCpu)) s.backend = Backend::kCpu;
    ImGui::BeginDisabled(!st.cuda_available);
    if (ImGui::Selectable("cuda", s.backend == Backend::kCuda)) s.backend = Backend::kCuda;
    ImGui::EndDisabled();
    ImGui::EndCombo();
  }
  if (!st.cuda_available) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("CUDA: %s", st.cuda_reason.c_str());
    ImGui::PopTextWrapPos();
  } else if (!st.backend_note.empty()) {
    ImGui::TextColored(ImVec4(1.0f, 0.72f, 0.3f, 1.0f), "%s", st.backend_note.c_str());
  }
}

// position (mm) and rotation (degrees) tolerances side by side
void tolerance_widgets(SolverSettings& s) {
  row_label("Tolerances");
  const float half = 0.5f * (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x);
  auto slider = [&](const char* id, const SettingInfo& info, double unit, const char* format) {
    ImGui::SetNextItemWidth(half);
    double& member = s.*std::get<double SolverSettings::*>(info.member);
    double v = member * unit;
    const double lo = info.typical_min * unit, hi = info.typical_max * unit;
    if (ImGui::SliderScalar(id, ImGuiDataType_Double, &v, &lo, &hi, format,
                            ImGuiSliderFlags_Logarithmic))
      member = std::clamp(v / unit, info.min, info.max);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.label);
  };
  // significant digits: a micro arm's 1e-7 m read "0.000 mm"
  slider("##tolp", setting_for(&SolverSettings::tol_position), 1000.0, "%.3g mm");
  ImGui::SameLine();
  slider("##tolr", setting_for(&SolverSettings::tol_rotation), 57.29577951308232, "%.3f\xc2\xb0");
}

// a workbench setting from 0 (shown "off") to hi, labelled and with its tooltip
void off_slider(const char* label, const char* id, double* value, double hi, const char* format,
                const char* tip) {
  row_label(label);
  double v = *value;
  const double lo = 0;
  if (ImGui::SliderScalar(id, ImGuiDataType_Double, &v, &lo, &hi, v > 0 ? format : "off"))
    *value = std::max(0.0, v);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

// the workbench's frame step bound (AppState::frame_step), and the joints it held back
void frame_step_widget(AppState& app) {
  off_slider("Frame step", "##frame_step", &app.frame_step, 0.5, "%.3f rad | m",
             "the most a joint may move in one frame (0: off); a drag then walks the robot along "
             "its\nbranch instead of letting it jump to another");
  if (app.solve.step_bound.empty() || !app.model) return;
  std::string names;
  for (int j : app.solve.step_bound)
    names += (names.empty() ? "" : ", ") + app.model->joint_name[j];
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(ImVec4(1.0f, 0.72f, 0.3f, 1.0f), "step bound holds %s", names.c_str());
  ImGui::PopTextWrapPos();
}

// the workbench's frame budget (AppState::frame_budget_ms), and how the last solve spent it
void frame_budget_widget(AppState& app) {
  off_slider("Frame budget", "##frame_budget", &app.frame_budget_ms, 50, "%.1f ms",
             "the most one frame's solve may take (0: off, every seed solved every frame):\n"
             "the warm start from where the robot is runs first and the frame stops there once "
             "it\nhas converged; otherwise the time left advances the other seeds, which "
             "continue\nacross frames from where they stopped");
  const BudgetStatus& b = app.solve.budget;
  if (!b.on) return;
  ImGui::TextDisabled("warm %.2f ms %d it, damping %.0e%s%s", b.warm_ms, b.warm_iterations,
                      b.warm_damping, b.stopped_converged ? ", converged: stopped" : "",
                      app.solve.settling ? " (posture settling)" : "");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "the warm start: its time, iterations and the LM damping it began with (where the last\n"
        "one ended, between a tenth of the Damping setting and the setting)");
  ImGui::TextDisabled("pool %d seeds %.2f ms %d it (pool %llu), left %.2f ms", b.pool_seeds,
                      b.pool_ms, b.pool_iterations, (unsigned long long)b.pool_generation,
                      b.left_ms);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "the last solve: pool seeds advanced, their time and iterations, which pool (one is drawn\n"
        "when the robot or objectives change or every seed is spent), and the budget left");
}

}  // namespace

void draw_solver_panel(Ui& ui, ImVec2 pos, ImVec2 size) {
  AppState& app = ui.app;
  SolverSettings& s = app.settings;
  if (!begin_panel("Solver", pos, size)) {
    ImGui::End();
    return;
  }
  const SolveStatus& st = app.solve;

  // this frame's solve
  const std::string state = app.solve_state();
  ImVec4 state_col = state == "converged" || state == "settled" ? ImVec4(0.4f, 0.85f, 0.5f, 1.0f)
                     : state == "best effort"                   ? ImVec4(1.0f, 0.42f, 0.38f, 1.0f)
                     : state == "paused" || state == "playing"  ? ImVec4(0.6f, 0.62f, 0.66f, 1.0f)
                                                                : ImVec4(1.0f, 0.72f, 0.3f, 1.0f);
  ImGui::TextColored(state_col, "%s", state.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "converged: the solver's tolerances are met, every objective reached\n"
        "settled: every target is within 1 mm / 0.5 deg, the soft objectives balance there\n"
        "best effort: stopped short of a target (out of reach or conflicting objectives) and\n"
        "standing still, or converged with a soft objective traded off (a soft balance leaning\n"
        "out)\n"
        "solving: still improving, or still moving\n"
        "playing: the timeline plays, its playhead moves the robot\n"
        "paused: live solving is off, or a branch edit or the timeline holds the robot");
  ImGui::SameLine();
  if (st.ran)
    ImGui::TextDisabled("%.2f ms  %d it  seed %d", st.solve_ms, st.iterations, st.seed);
  else if (st.solve_ms > 0)  // resting: the figures are the last solve's
    ImGui::TextDisabled("no solve (last %.2f ms)", st.solve_ms);
  else  // playing, paused
    ImGui::TextDisabled("no solve");
  ImGui::SameLine(ImGui::GetContentRegionAvail().x - 52);
  ImGui::Checkbox("live", &app.live_solve);
  Percentiles frame = app.stats.frame();
  std::vector<float> recent = app.stats.recent_frame_ms(120);
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "%.0f FPS  frame %.1f ms (median %.1f)", app.stats.fps(),
                app.stats.last_frame_ms(), frame.median);
  float top = 0;
  for (float v : recent) top = std::max(top, v);
  ImGui::PlotLines("##frames", recent.data(), int(recent.size()), 0, overlay, 0.0f,
                   std::max(top * 1.2f, 20.0f), ImVec2(ImGui::GetContentRegionAvail().x, 34));
  ImGui::Separator();

  ImGui::BeginChild("##settings", ImVec2(0, 0), false);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(8, 4));
  // the common settings; every setting not listed in `shown` goes under "More settings"
  std::vector<SettingMember> shown = {&SolverSettings::backend, &SolverSettings::gaussian_sigma,
                                      &SolverSettings::tol_position, &SolverSettings::tol_rotation};
  auto widget = [&](SettingMember m) {
    shown.push_back(m);
    setting_widget(setting_for(m), s);
  };
  backend_widget(s, st);
  widget(&SolverSettings::optimizer);
  widget(&SolverSettings::jacobian);
  widget(&SolverSettings::n_seeds);
  widget(&SolverSettings::sampler);
  if (s.sampler == Sampler::kGaussian)
    setting_widget(setting_for(&SolverSettings::gaussian_sigma), s);
  widget(&SolverSettings::max_iterations);
  widget(&SolverSettings::polish_iterations);
  widget(&SolverSettings::lambda_init);
  tolerance_widgets(s);
  frame_step_widget(app);
  frame_budget_widget(app);
  widget(&SolverSettings::prefer_closest);
  ImGui::SameLine(0, 16);
  widget(&SolverSettings::hard_joint_limits);
  if (ImGui::CollapsingHeader("More settings")) {
    const SettingGroup* group = nullptr;
    for (const SettingInfo& info : solver_settings_table()) {
      if (std::find(shown.begin(), shown.end(), info.member) != shown.end()) continue;
      if (!group || *group != info.group) ImGui::TextDisabled("%s", to_string(info.group));
      group = &info.group;
      setting_widget(info, s);
    }
  }
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace ikwb::gui
