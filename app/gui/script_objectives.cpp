#include "app/gui/script_objectives.hpp"

#include <algorithm>

#include "app/gui/script_args.hpp"
#include "solver/scene_problem.hpp"

namespace ikwb::gui {

namespace {

struct FieldWord {
  const char* word;
  uint32_t field;  // the kind must read it
  int values;      // words after it
};

constexpr FieldWord kFieldWords[] = {
    {"offset", kFieldOffset, 3},
    {"offset_b", kFieldOffsetB, 3},
    {"at", kFieldTargetLink, 1},  // at LINK: look at the point offset_b of LINK; at target
    {"offset_b", kFieldTargetLink, 3},
    {"distance", kFieldDistance, 1},
    {"axis", kFieldAxis, 3},
    {"direction", kFieldDirection, 3},
    {"cone", kFieldCone, 1},
    {"weight", 0, 1},
    {"position_weights", kFieldPositionWeights, 3},
    {"rotation_weights", kFieldRotationWeights, 3},
    {"hard", kFieldHard, 1},
    {"null_space", kFieldNullSpace, 1},
    // contact LINK X Y Z: one point; contact LINK: the corners of its lowest face (repeatable)
    {"contact", kFieldContacts, 1},
    {"margin", kFieldMargin, 1},
    {"lower", kFieldBox, 3},  // lengths, or inf / -inf
    {"upper", kFieldBox, 3},
    {"min_measure", kFieldMinMeasure, 1},
    {"name", 0, 1},
};

// three lengths where inf / -inf open a side
bool bounds_value(const std::vector<std::string>& a, std::size_t k, Vec3<double>* v) {
  for (int i = 0; i < 3; ++i) {
    const std::string& w = a[k + i];
    if (w == "inf" || w == "-inf")
      (*v)[i] = w == "inf" ? HUGE_VAL : -HUGE_VAL;
    else if (!length_value(w, &(*v)[i]))
      return false;
  }
  return true;
}

std::string allowed_words(const ObjectiveKind& kind) {
  std::string out;
  for (const FieldWord& f : kFieldWords)
    if (kind.has(f.field)) out += std::string(out.empty() ? "" : ", ") + f.word;
  return out;
}

bool vec3_value(const std::vector<std::string>& a, std::size_t k, bool lengths, Vec3<double>* v) {
  double x[3];
  for (int i = 0; i < 3; ++i)
    if (!(lengths ? length_value(a[k + i], &x[i]) : plain_number(a[k + i], &x[i]))) return false;
  *v = {x[0], x[1], x[2]};
  return true;
}

// Reads FIELD VALUE... words from args[k] on into o. `flags_alone`: hard and null_space may
// stand without on|off (add). body_q: the poses a contact link's lowest face is found at.
bool read_fields(const Model& model, const std::vector<Transform<double>>& body_q,
                 const std::vector<std::string>& a, std::size_t k, bool flags_alone, Objective& o,
                 std::string* error) {
  const ObjectiveKind& kind = objective_kind(o.params.type);
  ObjectiveParams<double>& p = o.params;
  while (k < a.size()) {
    const FieldWord* f = nullptr;
    for (const FieldWord& w : kFieldWords)
      if (!f && a[k] == w.word && kind.has(w.field)) f = &w;
    if (!f) {
      *error = "unexpected '" + a[k] + "' (a " + kind.name + " objective takes " +
               allowed_words(kind) + ")";
      return false;
    }
    const std::string word = a[k++];
    if (word == "hard" || word == "null_space") {
      bool on = true;
      if (k < a.size() && on_off(a[k], &on)) {
        ++k;
      } else if (!flags_alone) {
        *error = word + ": expected on or off";
        return false;
      }
      (word == "hard" ? p.hard : p.null_space) = on;
      continue;
    }
    if (k + f->values > a.size()) {
      *error = word + ": expected " + std::to_string(f->values) + " value(s)";
      return false;
    }
    bool ok = true;
    if (word == "offset") ok = vec3_value(a, k, true, &p.offset);
    if (word == "offset_b") ok = vec3_value(a, k, true, &p.offset_b);
    if (word == "distance") ok = length_value(a[k], &p.distance);
    if (word == "at" && a[k] == "target") p.link_b = -1;
    if (word == "at" && a[k] != "target" && (p.link_b = model.find_body(a[k])) < 0) {
      *error = "at: unknown link '" + a[k] + "' (a link name, or target)";
      return false;
    }
    if (word == "axis") ok = vec3_value(a, k, false, &p.axis);
    if (word == "direction") ok = vec3_value(a, k, false, &p.direction);
    if (word == "cone") ok = angle_value(a[k], &p.cone);
    if (word == "weight") ok = plain_number(a[k], &p.weight);
    if (word == "position_weights") ok = vec3_value(a, k, false, &p.position_weights);
    if (word == "rotation_weights") ok = vec3_value(a, k, false, &p.rotation_weights);
    if (word == "name") o.name = a[k];
    if (word == "margin") ok = length_value(a[k], &p.margin);
    if (word == "min_measure") ok = plain_number(a[k], &p.min_measure);
    if (word == "lower") ok = bounds_value(a, k, &p.box_lower);
    if (word == "upper") ok = bounds_value(a, k, &p.box_upper);
    if (word == "contact") {
      LinkPoint<double> lp;
      lp.link = model.find_body(a[k]);
      if (lp.link < 0) {
        *error = "contact: unknown link '" + a[k] + "'";
        return false;
      }
      if (k + 4 <= a.size() && vec3_value(a, k + 1, true, &lp.offset)) {
        o.points.push_back(lp);
        k += 3;  // the point's coordinates
      } else {
        const std::vector<Vec3<double>> face = lowest_face_points(model, lp.link, body_q);
        if (face.empty()) {
          *error = "contact " + a[k] + ": the link has no shapes to stand on; give points " +
                   "(contact LINK X Y Z)";
          return false;
        }
        for (const Vec3<double>& p : face) o.points.push_back({lp.link, p});
      }
    }
    if (!ok) {
      *error = word + ": bad value in '" + a[k] + "...'";
      return false;
    }
    k += f->values;
  }
  return true;
}

// The scene reader's rules for the edited objective (a scene saved with it must open again: a
// direction of 1e300 became zero, an offset of 1e300 was refused at the next open); false with
// the rule broken in *error.
bool keeps_scene_rules(const Model& model, const Objective& o, const Transform<double>& target,
                       std::string* error) {
  try {
    parse_scene_objective(scene_objective_to_json(objective_to_scene(model, {o, target})),
                          "objective");
  } catch (const SceneError& e) {
    *error = e.what();
    return false;
  }
  return true;
}

}  // namespace

bool script_add_objective(AppState& app, const std::vector<std::string>& a, std::string* error) {
  const ObjectiveKind* kind = find_objective_kind(a[1]);
  if (!kind) {
    *error = "unknown objective type '" + a[1] + "' (known: " + objective_kind_names() + ")";
    return false;
  }
  if (!app.model) {
    *error = "no robot loaded";
    return false;
  }
  std::size_t k = 2;
  int links[2] = {-1, -1};
  const int link_count = kind->has(kFieldLinkB) ? 2 : kind->has(kFieldLink) ? 1 : 0;
  for (int l = 0; l < link_count; ++l, ++k) {
    if (k >= a.size()) {
      *error = std::string("a ") + kind->name + " objective needs " +
               (link_count == 2 ? "two links: add " + std::string(kind->name) + " LINK LINK_B"
                                : "a link: add " + std::string(kind->name) + " LINK");
      return false;
    }
    if ((links[l] = app.model->find_body(a[k])) < 0) {
      *error = "unknown link '" + a[k] + "'";
      return false;
    }
  }
  app.ensure_fk();  // the defaults read the poses now (a support polygon's lowest links)
  Objective o = app.new_objective(kind->type, links[0]);
  o.params.link_b = links[1];
  // a relative_fixed holds the pair as it stands now, as a scene's "relative": "current"
  if (kind->has(kFieldRelative))
    o.params.relative = inverse(app.fk.body_q[links[0]]) * app.fk.body_q[links[1]];
  // contacts given replace the default ones (a support polygon's: the links standing lowest)
  if (std::find(a.begin(), a.end(), "contact") != a.end()) o.points.clear();
  if (!read_fields(*app.model, app.fk.body_q, a, k, true, o, error)) return false;
  // (the target comes from the link's pose when added)
  if (!keeps_scene_rules(*app.model, o, transform_identity<double>(), error)) return false;
  const int added = app.add_objective(std::move(o));
  if (added < 0) {
    *error = "objective not added (see the messages)";
    return false;
  }
  app.check_support_margin(added);
  return true;
}

bool script_set_objective(AppState& app, const std::vector<std::string>& a, std::string* error) {
  int i = -1;
  if (!index_value(a[1], &i) || i >= int(app.objectives.size())) {
    *error = "no objective " + a[1] + " (there are " + std::to_string(app.objectives.size()) + ")";
    return false;
  }
  Objective edited = app.objectives[i].spec;
  // contact points given anew replace the old ones
  if (std::find(a.begin(), a.end(), "contact") != a.end()) edited.points.clear();
  if (!read_fields(*app.model, app.fk.body_q, a, 2, false, edited, error)) return false;
  if (!keeps_scene_rules(*app.model, edited, app.objectives[i].target, error)) return false;
  // names tell the objectives apart (explanations, target files' NAME.x columns): a rename
  // never takes another's
  for (int j = 0; j < int(app.objectives.size()); ++j)
    if (j != i && app.objectives[j].name() == edited.name) {
      *error = "an objective named '" + edited.name + "' exists already (objective " +
               std::to_string(j) + ")";
      return false;
    }
  // `at`: the followed link goes through set_look_at_link (the target takes the followed point)
  const int follow = edited.params.link_b;
  edited.params.link_b = app.objectives[i].spec.params.link_b;
  const Vec3<double> offset_b = edited.params.offset_b;
  app.objectives[i].spec = std::move(edited);
  app.set_look_at_link(i, follow);
  if (std::find(a.begin(), a.end(), "offset_b") != a.end())
    app.objectives[i].spec.params.offset_b = offset_b;
  app.note_edit("set " + a[2]);
  app.check_support_margin(i);
  return true;
}

}  // namespace ikwb::gui
