// Solver panel: backend (CUDA only when usable, with the reason otherwise), optimiser, seeds,
// sampler, iterations per frame, damping, Jacobian mode and tolerances; and this frame's solve
// (time, iterations, converged, kept seed) with the frame rate and a frame time plot.
#include <algorithm>
#include <cmath>

#include "app/gui/panels.hpp"

namespace ikwb::gui {

namespace {

template <class E>
bool enum_combo(const char* label, E* value, std::initializer_list<E> values) {
  bool changed = false;
  if (ImGui::BeginCombo(label, to_string(*value))) {
    for (E v : values) {
      if (ImGui::Selectable(to_string(v), v == *value)) {
        *value = v;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

void row_label(const char* text) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(text);
  ImGui::SameLine(120);
  ImGui::SetNextItemWidth(-1);
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
                     : state == "paused"                        ? ImVec4(0.6f, 0.62f, 0.66f, 1.0f)
                                                                : ImVec4(1.0f, 0.72f, 0.3f, 1.0f);
  ImGui::TextColored(state_col, "%s", state.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "converged: the solver's tolerances are met\n"
        "settled: every target is within 1 mm / 0.5 deg, the soft objectives balance there\n"
        "best effort: stopped short of a target (out of reach or conflicting objectives)\n"
        "solving: still improving");
  ImGui::SameLine();
  ImGui::TextDisabled("%.2f ms  %d it  seed %d", app.stats.last_solve_ms(), st.iterations, st.seed);
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
  row_label("Backend");
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
  row_label("Optimiser");
  enum_combo("##opt", &s.optimizer, {Optimizer::kLevenbergMarquardt, Optimizer::kLbfgs});
  row_label("Jacobian");
  enum_combo("##jac", &s.jacobian,
             {JacobianMode::kAnalytic, JacobianMode::kAutodiff, JacobianMode::kFiniteDifference,
              JacobianMode::kMixed});
  row_label("Seeds");
  ImGui::SliderInt("##seeds", &s.n_seeds, 1, 128, "%d", ImGuiSliderFlags_Logarithmic);
  row_label("Sampler");
  enum_combo("##sampler", &s.sampler,
             {Sampler::kNone, Sampler::kGaussian, Sampler::kUniform, Sampler::kRoberts});
  if (s.sampler == Sampler::kGaussian) {
    row_label("  sigma");
    float sigma = float(s.gaussian_sigma);
    if (ImGui::SliderFloat("##sigma", &sigma, 0.01f, 2.0f, "%.2f rad")) s.gaussian_sigma = sigma;
  }
  row_label("Iter. / frame");
  ImGui::SliderInt("##iters", &s.max_iterations, 1, 200, "%d", ImGuiSliderFlags_Logarithmic);
  row_label("Polish");
  ImGui::SliderInt("##polish", &s.polish_iterations, 0, 5);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "LM iterations still taken once the tolerances are met, to sharpen the "
        "answer");
  row_label("Damping");
  float lambda = float(s.lambda_init);
  if (ImGui::SliderFloat("##damping", &lambda, 1e-6f, 10.0f, "%.1e", ImGuiSliderFlags_Logarithmic))
    s.lambda_init = lambda;
  // position and rotation tolerances side by side
  row_label("Tolerances");
  const float half = 0.5f * (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x);
  ImGui::SetNextItemWidth(half);
  float tp = float(s.tol_position * 1000.0);
  if (ImGui::SliderFloat("##tolp", &tp, 0.001f, 10.0f, "%.3f mm", ImGuiSliderFlags_Logarithmic))
    s.tol_position = tp / 1000.0;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("position tolerance");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(half);
  float tr = float(s.tol_rotation * 57.29577951308232);
  if (ImGui::SliderFloat("##tolr", &tr, 0.001f, 5.0f, "%.3f\xc2\xb0", ImGuiSliderFlags_Logarithmic))
    s.tol_rotation = tr / 57.29577951308232;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("rotation tolerance");
  ImGui::Checkbox("Prefer closest", &s.prefer_closest);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Among converged seeds keep the one closest to the current configuration");
  ImGui::SameLine(0, 16);
  ImGui::Checkbox("Hard joint limits", &s.hard_joint_limits);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Project onto the joint limits after each step");
  ImGui::PopStyleVar();
  ImGui::EndChild();
  ImGui::End();
  s.n_seeds = std::max(1, s.n_seeds);
  s.max_iterations = std::max(1, s.max_iterations);
  s.polish_iterations = std::clamp(s.polish_iterations, 0, 100);
}

}  // namespace ikwb::gui
