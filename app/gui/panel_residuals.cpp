// Residuals panel: per objective, the residual norm as a bar and its history over the last
// frames; the closest collision pairs; the total cost and the iterations per frame. Drawn with
// ImDrawList (no implot).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "app/gui/length_text.hpp"
#include "app/gui/visuals.hpp"

namespace ikwb::gui {

namespace {

// log10 scale from 1e-6 (0) to 1 (1)
// 0 for NaN (no value: no solve ran)
float log_scale(double v) {
  if (!(v == v)) return 0.0f;
  return float(std::clamp((std::log10(std::max(v, 1e-12)) + 6.0) / 6.0, 0.0, 1.0));
}

ImU32 u32(const glm::vec4& c) {
  return ImGui::ColorConvertFloat4ToU32({c.r, c.g, c.b, c.a});
}

ImU32 series_color(int i) {
  static const ImU32 colors[] = {IM_COL32(90, 170, 255, 255),  IM_COL32(255, 160, 60, 255),
                                 IM_COL32(120, 220, 120, 255), IM_COL32(230, 90, 200, 255),
                                 IM_COL32(240, 220, 80, 255),  IM_COL32(100, 220, 220, 255)};
  return colors[i % 6];
}

// a plot frame of the given size at the cursor; returns its rectangle
void plot_frame(ImDrawList* dl, ImVec2 size, ImVec2* a, ImVec2* b) {
  *a = ImGui::GetCursorScreenPos();
  *b = ImVec2(a->x + size.x, a->y + size.y);
  dl->AddRectFilled(*a, *b, IM_COL32(20, 22, 26, 220), 3.0f);
  dl->AddRect(*a, *b, IM_COL32(70, 74, 82, 255), 3.0f);
  ImGui::Dummy(size);
}

// a plot's title in its top left corner, over its series on the frame's colour (the series ran
// through it), cut at the frame's edge
void plot_title(ImDrawList* dl, ImVec2 a, ImVec2 b, const char* title) {
  const ImVec2 text = ImGui::CalcTextSize(title);
  dl->PushClipRect(a, b, true);
  dl->AddRectFilled(ImVec2(a.x + 1, a.y + 1), ImVec2(a.x + text.x + 7, a.y + text.y + 3),
                    IM_COL32(20, 22, 26, 235), 3.0f);
  dl->AddText(ImVec2(a.x + 4, a.y + 2), IM_COL32(170, 175, 185, 255), title);
  dl->PopClipRect();
}

// one series, values already in [0, 1], newest on the right
template <class F>
void plot_series(ImDrawList* dl, ImVec2 a, ImVec2 b, int n, F value, ImU32 color) {
  if (n < 2) return;
  const float w = b.x - a.x, h = b.y - a.y - 4;
  ImVec2 prev;
  for (int k = 0; k < n; ++k) {
    float x = b.x - w * float(n - 1 - k) / float(Visuals::kHistory - 1);
    ImVec2 p(x, b.y - 2 - h * std::clamp(value(k), 0.0f, 1.0f));
    if (k > 0) dl->AddLine(prev, p, color, 1.5f);
    prev = p;
  }
}

// a row of the list (height h, the width available) is in the scrolled region's view: rows out
// of it only take their place (a scene of 209 objectives lists 209 bars)
bool row_visible(float h) {
  const ImVec2 a = ImGui::GetCursorScreenPos();
  return ImGui::IsRectVisible(a, ImVec2(a.x + ImGui::GetContentRegionAvail().x, a.y + h));
}

// "TEXT  1.23 mm", "TEXT  0.50 deg", or "TEXT  0.0012" for an amount without a unit
std::string amount_text(const std::string& text, double v, ShareUnit unit) {
  char num[48];
  if (unit == ShareUnit::kRadian)
    std::snprintf(num, sizeof num, "  %.2f deg", v * 57.29577951308232);
  else if (unit == ShareUnit::kMetre)
    return text + "  " + length_text(v, LengthUnit::kMillimetre, 2);
  else
    std::snprintf(num, sizeof num, "  %.3g", v);
  return text + num;
}

// under an objective the solver settled short of, one bar per objective pulling against it
// (SolverDriver's explanation): its share of the pulls, in its series colour; a grey line for
// the part no soft objective holds back (blocked: the least error without them), and one for
// the others' help
void pull_bars(const AppState& app, const WorkbenchObjective& o, float w, float bh) {
  const ObjectiveStatus& st = o.status;
  double total = 0;
  for (const Pull& p : st.pulled_by) total += p.share;
  if (!(total > 0)) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float indent = 24.0f, bw = w - indent;
  for (const Pull& p : st.pulled_by) {
    if (!row_visible(bh)) {
      ImGui::Dummy(ImVec2(w, bh + 1));
      continue;
    }
    ImVec2 a = ImGui::GetCursorScreenPos();
    a.x += indent;
    dl->AddRectFilled(a, ImVec2(a.x + bw, a.y + bh), IM_COL32(30, 33, 38, 255), 2.0f);
    dl->AddRectFilled(a, ImVec2(a.x + bw * float(p.share / total), a.y + bh),
                      series_color(p.objective) & IM_COL32(255, 255, 255, 150), 2.0f);
    const std::string text = amount_text(
        "pulled by " + std::to_string(p.objective) + " " + app.objectives[p.objective].name(),
        p.share, st.unit);
    dl->AddText(ImVec2(a.x + 6, a.y), IM_COL32(235, 235, 240, 255), text.c_str());
    ImGui::Dummy(ImVec2(w, bh + 1));
  }
  auto grey_line = [&](const std::string& text) {
    ImVec2 a = ImGui::GetCursorScreenPos();
    dl->AddText(ImVec2(a.x + indent + 6, a.y), IM_COL32(160, 165, 175, 255), text.c_str());
    ImGui::Dummy(ImVec2(w, bh + 1));
  };
  if (std::isfinite(st.best_error)) grey_line(amount_text("at best", st.best_error, st.unit));
  // listed shares above what they split: the helpers (negative shares), and the others under 1%
  for (const Pull& p : st.helped_by)
    grey_line(amount_text(
        "helped by " + std::to_string(p.objective) + " " + app.objectives[p.objective].name(),
        p.share, st.unit));
  const double unnamed = st.unnamed_help();
  if (unnamed > 0.01 * st.share_error)
    grey_line(amount_text("helped by the others", unnamed, st.unit));
}

// the least height of the history plots (pixels; their titles are drawn inside them):
// the rows above scroll to leave it. The plots stand side by side: the strip under the view is
// 200 px tall, and stacked they left the rows three lines (the tug-of-war demo's posture, two
// targets and the pull of each on the other scrolled out of view at 1280x720)
constexpr float kPlotMinHeight = 44.0f;

// the closest collision pairs (AppState::collisions): link names and distance in mm, red when
// penetrating, orange within the margin
void collision_rows(const AppState& app) {
  const CollisionStatus& cs = app.collisions;
  if (cs.pairs.empty()) return;
  char title[160];
  std::snprintf(title, sizeof title, "Collisions: %d penetrating, %d within %s###collisions",
                cs.penetrating_count, cs.near_count,
                length_text(cs.margin, LengthUnit::kMillimetre, 0).c_str());
  if (!ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen)) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = ImGui::GetContentRegionAvail().x, bh = ImGui::GetTextLineHeight();
  const int shown = std::min(int(cs.pairs.size()), kCollisionPairsListed);
  for (int k = 0; k < shown; ++k) {
    const BodyDistance& d = cs.pairs[k];
    ImVec2 a = ImGui::GetCursorScreenPos();
    const ImU32 col = u32(collision_color(d.contact.distance, cs.margin));
    dl->AddRectFilled(a, ImVec2(a.x + 4, a.y + bh), col);
    char text[256];
    std::snprintf(text, sizeof text, "%10s  %s",
                  length_text(d.contact.distance, LengthUnit::kMillimetre, 1).c_str(),
                  collision_pair_label(app, d).c_str());
    dl->AddText(ImVec2(a.x + 8, a.y), col, text);
    ImGui::Dummy(ImVec2(w, bh + 1));
  }
  if (int(cs.pairs.size()) > shown)
    ImGui::TextDisabled("%d more within the margin", int(cs.pairs.size()) - shown);
  // a robot without an SRDF: capsules fitted to links that touch by design overlap at any pose
  // (a review's fresh arm read "-175.7 mm" in red at rest, the hint only in `ikwb check`)
  bool self_overlap = false;
  for (const BodyDistance& d : cs.pairs) self_overlap |= d.obstacle < 0 && d.contact.distance < 0;
  if (self_overlap && app.srdf.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "no SRDF: fitted capsules can overlap where links touch by design; View > Collision "
        "pairs, \"Turn off overlapping\", or an SRDF (ikwb check ROBOT --sample-pairs 10000 "
        "--out ROBOT.srdf)");
    ImGui::PopTextWrapPos();
  }
}

}  // namespace

std::vector<int> plotted_objectives(const AppState& app) {
  const int n = int(app.objectives.size());
  std::vector<int> idx(std::size_t(n), 0);
  std::iota(idx.begin(), idx.end(), 0);
  if (n <= kPlottedSeries) return idx;
  std::vector<double> norm(std::size_t(n), -1.0);
  for (int i = 0; i < n; ++i) {
    const WorkbenchObjective& o = app.objectives[i];
    const double r = o.enabled() ? residual_norm(o) : -1.0;
    norm[std::size_t(i)] = std::isnan(r) ? -1.0 : r;
  }
  std::partial_sort(idx.begin(), idx.begin() + kPlottedSeries, idx.end(),
                    [&](int a, int b) { return norm[std::size_t(a)] > norm[std::size_t(b)]; });
  idx.resize(kPlottedSeries);
  std::sort(idx.begin(), idx.end());
  return idx;
}

void draw_residuals_panel(const AppState& app, const Visuals& vis, ImVec2 pos, ImVec2 size,
                          bool* open) {
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(size, ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  if (!ImGui::Begin("Residuals", open, flags)) {
    ImGui::End();
    return;
  }
  const auto& h = vis.history();
  const int n = int(h.size());

  // The bars, their pulls and the collision list scroll in a region of their own, as tall as
  // they are (last frame's height) but leaving the history plots kPlotMinHeight: below a long
  // collision list the plots were out of view
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float room =
      ImGui::GetContentRegionAvail().y - (kPlotMinHeight + ImGui::GetStyle().ItemSpacing.y);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID rows_id = ImGui::GetID("rows_height");
  const float rows_height = std::max(3 * line, std::min(storage->GetFloat(rows_id, room), room));
  ImGui::BeginChild("rows", ImVec2(0, rows_height));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // bars: current residual per objective (log scale 1e-6 .. 1)
  for (int i = 0; i < int(app.objectives.size()); ++i) {
    const WorkbenchObjective& o = app.objectives[i];
    const double r = o.enabled() ? residual_norm(o) : 0.0;
    // not an error the solve misses: a posture's distance to its rest (a preference), an
    // objective not pursued (weight 0): grey
    const bool rest = o.kind().has(kFieldRest), measure = rest || !o.status.pursued;
    ImVec2 a = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, bh = ImGui::GetTextLineHeight();
    if (!row_visible(bh)) {
      ImGui::Dummy(ImVec2(w, bh + 1));
      pull_bars(app, o, w, bh);
      continue;
    }
    dl->AddRectFilled(a, ImVec2(a.x + w, a.y + bh), IM_COL32(30, 33, 38, 255), 2.0f);
    dl->AddRectFilled(
        a, ImVec2(a.x + w * log_scale(r), a.y + bh),
        u32(measure ? glm::vec4(0.5f, 0.5f, 0.5f, 0.8f) : magnitude_color(log_scale(r), 0.8f)),
        2.0f);
    dl->AddRectFilled(ImVec2(a.x, a.y), ImVec2(a.x + 4, a.y + bh), series_color(i));
    char text[160];
    // in the objective's own units (mm and degrees of a pose: their sum, the bar's length, has
    // none); a posture's distance to its rest is over joints of either unit
    char value[64];
    if (rest)
      std::snprintf(value, sizeof value, "%.3g", o.status.deviation);
    else
      std::snprintf(value, sizeof value, "%s", miss_text(o).c_str());
    std::snprintf(text, sizeof text, "%d %s  %s%s", i, o.name().c_str(), value,
                  !o.enabled()        ? "  off"
                  : !o.status.pursued ? "  weight 0"
                  : rest              ? "  to rest"
                  : o.status.reached  ? "  reached"
                                      : "");
    dl->AddText(ImVec2(a.x + 8, a.y), IM_COL32(235, 235, 240, 255), text);
    ImGui::Dummy(ImVec2(w, bh + 1));
    pull_bars(app, o, w, bh);
  }
  if (app.objectives.empty()) ImGui::TextDisabled("no objectives");
  collision_rows(app);
  const float rows_content = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
  ImGui::EndChild();
  storage->SetFloat(rows_id, rows_content);
  dl = ImGui::GetWindowDrawList();

  // history per objective, and beside it the cost and iterations
  ImVec2 a, b;
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const ImVec2 plot((ImGui::GetContentRegionAvail().x - gap) * 0.5f,
                    std::max(kPlotMinHeight, ImGui::GetContentRegionAvail().y - 2.0f));
  const std::vector<int> plotted = plotted_objectives(app);
  char norms_title[96];
  if (plotted.size() < app.objectives.size())
    std::snprintf(norms_title, sizeof norms_title, "residuals: %d of %d (log)", int(plotted.size()),
                  int(app.objectives.size()));
  else
    std::snprintf(norms_title, sizeof norms_title, "residual norm (log)");
  plot_frame(dl, plot, &a, &b);
  for (int i : plotted)
    plot_series(
        dl, a, b, n,
        [&](int k) {
          const auto& v = h[k].norms;
          return i < int(v.size()) ? log_scale(v[i]) : 0.0f;
        },
        series_color(i));
  plot_title(dl, a, b, norms_title);

  // total cost (log) and iterations per frame (linear)
  int max_it = 1;
  for (const ResidualSample& s : h) max_it = std::max(max_it, s.iterations);
  char title[96], cost[32] = "- (no solve)";
  if (n && h.back().cost == h.back().cost) std::snprintf(cost, sizeof cost, "%.2g", h.back().cost);
  std::snprintf(title, sizeof title, "cost %s  it %d/%d", cost, n ? h.back().iterations : 0,
                max_it);
  ImGui::SameLine(0, gap);
  plot_frame(dl, plot, &a, &b);
  plot_series(
      dl, a, b, n, [&](int k) { return float(h[k].iterations) / float(max_it); },
      IM_COL32(150, 150, 160, 200));
  plot_series(
      dl, a, b, n, [&](int k) { return log_scale(h[k].cost); }, IM_COL32(255, 210, 90, 255));
  plot_title(dl, a, b, title);
  ImGui::End();
}

}  // namespace ikwb::gui
