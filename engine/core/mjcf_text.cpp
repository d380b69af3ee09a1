// Start tags, included files and MuJoCo's message fields, scanned from the text as written.
#include "engine/core/mjcf_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "engine/core/text_file.hpp"

namespace ikwb {

int line_of(const std::string& text, std::size_t pos) {
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(pos), '\n'));
}

std::vector<StartTag> start_tags(const std::string& text, const std::string& element) {
  constexpr const char* kSpace = " \t\r\n";
  std::vector<StartTag> tags;
  for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at + 1)) {
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      if (at == std::string::npos) break;
      continue;
    }
    // the element's name: up to a space, '/' or '>' (declarations and end tags are none)
    const std::size_t name_end = std::min(text.find_first_of(" \t\r\n/>", at + 1), text.size());
    const std::string name = text.substr(at + 1, name_end - at - 1);
    if (name.empty() || name[0] == '?' || name[0] == '!' || name_end >= text.size() ||
        (!element.empty() && name != element))
      continue;
    std::size_t p = name_end;
    StartTag tag{at, {}, name};
    for (;;) {
      p = text.find_first_not_of(kSpace, p);
      if (p == std::string::npos || text[p] == '/' || text[p] == '>') break;
      const std::size_t name_end = text.find_first_of(" \t\r\n=/>", p);
      const std::size_t eq = text.find_first_not_of(kSpace, name_end);
      if (eq == std::string::npos || text[eq] != '=') break;
      const std::size_t quote = text.find_first_not_of(kSpace, eq + 1);
      if (quote == std::string::npos || (text[quote] != '"' && text[quote] != '\'')) break;
      const std::size_t close = text.find(text[quote], quote + 1);
      if (close == std::string::npos) break;
      tag.attributes.push_back(
          {p, close + 1, text.substr(p, name_end - p), text.substr(quote + 1, close - quote - 1)});
      p = close + 1;
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

MjcfSources read_sources(const std::string& path) {
  MjcfSources s;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  s.paths.push_back(path);
  for (std::size_t i = 0; i < s.paths.size(); ++i) {
    std::ifstream in(s.paths[i], std::ios::binary);
    s.texts.emplace_back();
    read_text_stream(in, s.texts.back());  // MuJoCo's own read names what is wrong
    for (const StartTag& tag : start_tags(s.texts[i], "include"))
      for (const TagAttribute& a : tag.attributes) {
        const std::string file = (dir / a.value).string();
        if (a.name == "file" && std::find(s.paths.begin(), s.paths.end(), file) == s.paths.end())
          s.paths.push_back(file);
      }
  }
  return s;
}

std::string bad_number_attribute(const MjcfSources& sources) {
  // the attributes whose numbers reach the model: poses, axes, sizes, ranges, masses, scales
  static const char* const kNumeric[] = {
      "pos",   "quat",   "axisangle", "euler",    "xyaxes",    "zaxis",       "fromto",
      "size",  "axis",   "range",     "ref",      "mass",      "diaginertia", "fullinertia",
      "scale", "refpos", "refquat",   "polycoef", "springref", "density"};
  for (std::size_t f = 0; f < sources.texts.size(); ++f)
    for (const StartTag& tag : start_tags(sources.texts[f], "")) {
      std::string name;
      bool unlimited = false;  // limited="false": MuJoCo reads no range (-inf inf is common)
      for (const TagAttribute& a : tag.attributes) {
        if (a.name == "name") name = " name='" + a.value + "'";
        if (a.name == "limited") unlimited = a.value == "false";
      }
      for (const TagAttribute& a : tag.attributes) {
        if (std::find_if(std::begin(kNumeric), std::end(kNumeric),
                         [&](const char* n) { return a.name == n; }) == std::end(kNumeric))
          continue;
        // a range places nothing but a joint's limits, and none when the joint is not limited
        if (a.name == "range" && (tag.element != "joint" || unlimited)) continue;
        std::size_t p = 0;
        while ((p = a.value.find_first_not_of(" \t\r\n,", p)) != std::string::npos) {
          const std::size_t e = std::min(a.value.find_first_of(" \t\r\n,", p), a.value.size());
          const std::string token = a.value.substr(p, e - p);
          char* end = nullptr;
          const double v = std::strtod(token.c_str(), &end);
          const bool number = end == token.c_str() + token.size();
          const bool weighs = a.name == "mass" || a.name == "diaginertia" || a.name == "density";
          const std::string place =
              sources.paths[f] + ":" + std::to_string(line_of(sources.texts[f], a.begin)) + ": <" +
              tag.element + name + "> " + a.name + "=\"" + a.value + "\": '" + token + "'";
          if (number && !std::isfinite(v)) return place + " is not a finite number";
          if (number && weighs && v < 0)
            return place +
                   " is negative: masses, inertias and densities are 0 or more (a body of mass 0 "
                   "is massless here)";
          p = e;
        }
      }
    }
  return "";
}

namespace {

constexpr const char* kOrientations[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};

bool is_orientation(const std::string& attribute) {
  return std::find(std::begin(kOrientations), std::end(kOrientations), attribute) !=
         std::end(kOrientations);
}

// [begin, end) of each outermost <default> section of `text`, comments skipped
std::vector<std::pair<std::size_t, std::size_t>> default_sections(const std::string& text) {
  std::vector<std::pair<std::size_t, int>> marks;  // offset, +1 opens / -1 closes
  for (const StartTag& tag : start_tags(text, "default")) {
    const std::size_t close = text.find('>', tag.begin);
    if (close != std::string::npos && text[close - 1] != '/') marks.push_back({tag.begin, +1});
  }
  for (std::size_t at = text.find("</default"); at != std::string::npos;
       at = text.find("</default", at + 1)) {
    const std::size_t comment = text.rfind("<!--", at);
    if (comment != std::string::npos && text.find("-->", comment) > at) continue;
    marks.push_back({at, -1});
  }
  std::sort(marks.begin(), marks.end());
  std::vector<std::pair<std::size_t, std::size_t>> sections;
  int depth = 0;
  std::size_t begin = 0;
  for (const auto& [at, step] : marks) {
    if (depth == 0 && step > 0) begin = at;
    depth = std::max(0, depth + step);
    if (depth == 0 && step < 0) sections.push_back({begin, at});
  }
  if (depth > 0) sections.push_back({begin, text.size()});
  return sections;
}

bool in_sections(const std::vector<std::pair<std::size_t, std::size_t>>& sections, std::size_t at) {
  return std::any_of(sections.begin(), sections.end(),
                     [&](const auto& s) { return at >= s.first && at < s.second; });
}

}  // namespace

std::vector<OwnOrientation> own_orientations(const MjcfSources& sources,
                                             const std::string& element) {
  std::vector<OwnOrientation> out;
  for (std::size_t f = 0; f < sources.texts.size(); ++f) {
    const std::string& text = sources.texts[f];
    const auto sections = default_sections(text);
    for (const StartTag& tag : start_tags(text, element)) {
      if (in_sections(sections, tag.begin)) continue;
      OwnOrientation o;
      for (const TagAttribute& a : tag.attributes) {
        if (a.name == "name") o.name = a.value;
        if (is_orientation(a.name)) o.attribute = a.name;
      }
      if (o.attribute.empty()) continue;
      o.place = sources.paths[f] + ":" + std::to_string(line_of(text, tag.begin));
      out.push_back(std::move(o));
    }
  }
  return out;
}

void name_own_orientations(MjcfSources& sources, const std::string& element,
                           const std::string& prefix) {
  std::size_t k = 0;
  for (std::string& text : sources.texts) {
    const auto sections = default_sections(text);
    std::vector<std::pair<std::size_t, std::string>> inserts;  // after the element's name
    for (const StartTag& tag : start_tags(text, element)) {
      if (in_sections(sections, tag.begin)) continue;
      bool named = false, oriented = false;
      for (const TagAttribute& a : tag.attributes) {
        named = named || a.name == "name";
        oriented = oriented || is_orientation(a.name);
      }
      if (!oriented) continue;
      if (!named)
        inserts.push_back(
            {tag.begin + 1 + element.size(), " name=\"" + prefix + std::to_string(k) + "\""});
      ++k;
    }
    // from the end, so that earlier offsets stay valid
    for (auto i = inserts.rbegin(); i != inserts.rend(); ++i) text.insert(i->first, i->second);
  }
}

bool strip_default_orientations(MjcfSources& sources, const std::string& element) {
  bool stripped = false;
  for (std::string& text : sources.texts) {
    const auto sections = default_sections(text);
    const std::vector<StartTag> tags = start_tags(text, element);
    // from the end, so that earlier offsets stay valid
    for (auto t = tags.rbegin(); t != tags.rend(); ++t) {
      if (!in_sections(sections, t->begin)) continue;
      for (auto a = t->attributes.rbegin(); a != t->attributes.rend(); ++a)
        if (is_orientation(a->name)) {
          text.erase(a->begin, a->end - a->begin);
          stripped = true;
        }
    }
  }
  return stripped;
}

std::string message_field(const std::string& error, const std::string& key, char end) {
  std::size_t at = error.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return error.substr(at, error.find(end, at) - at);
}

std::string unknown_class_hint(const std::string& error, const MjcfSources& sources) {
  // MuJoCo says "unknown default class" for class=, "unknown default childclass" for childclass=
  if (error.find("unknown default class") == std::string::npos &&
      error.find("unknown default childclass") == std::string::npos)
    return "";
  const std::string element = message_field(error, "Element '", '\'');
  const std::string line = message_field(error, "', line ", ' ');
  std::string unknown, known;
  for (std::size_t f = 0; f < sources.texts.size(); ++f)
    for (const StartTag& tag : start_tags(sources.texts[f], "")) {
      for (const TagAttribute& a : tag.attributes) {
        if (tag.element == "default" && a.name == "class")
          known += (known.empty() ? "'" : ", '") + a.value + "'";
        if (unknown.empty() && tag.element == element &&
            (a.name == "class" || a.name == "childclass") &&
            std::to_string(line_of(sources.texts[f], tag.begin)) == line)
          unknown = a.value;
      }
    }
  if (unknown.empty()) return "";
  return " (class '" + unknown + "'; " +
         (known.empty() ? std::string("the file defines no classes")
                        : "the file's classes: " + known) +
         ")";
}

std::string included_fault_place(const std::string& error, const MjcfSources& sources) {
  // a schema error names its element ("Element 'joint', line 0"), a compile error its object
  // ("Object name = b, id = 2, line = 0")
  const std::string element = message_field(error, "Element '", '\'');
  const std::string object = element.empty() ? message_field(error, "Object name = ", ',') : "";
  const std::string line = element.empty() ? message_field(error, "line = ", ',')
                                           : message_field(error, "', line ", ' ');
  if ((element.empty() && object.empty()) || line != "0") return "";
  // what picks the tag out: the attribute the message names, the keyword it quotes, the name
  std::string attribute = message_field(error, "attribute: '", '\'');
  if (attribute.empty()) attribute = message_field(error, "attribute '", '\'');
  const std::string keyword = message_field(error, "keyword: '", '\'');
  auto fits = [&](const StartTag& tag) {
    auto any = [&](auto pred) {
      return std::any_of(tag.attributes.begin(), tag.attributes.end(), pred);
    };
    return (attribute.empty() || any([&](const TagAttribute& a) { return a.name == attribute; })) &&
           (keyword.empty() || any([&](const TagAttribute& a) { return a.value == keyword; })) &&
           (object.empty() ||
            any([&](const TagAttribute& a) { return a.name == "name" && a.value == object; }));
  };
  static const char* const kNamed[] = {"body", "joint", "geom", "site", "camera", "light"};
  std::vector<std::string> elements;
  if (!element.empty())
    elements.push_back(element);
  else
    // the kind the message gives the object ("... in joint 'jb'"), else any named kind
    for (const char* kind : kNamed)
      if (error.find(std::string("in ") + kind + " '" + object + "'") != std::string::npos)
        elements.push_back(kind);
  if (elements.empty()) elements.assign(std::begin(kNamed), std::end(kNamed));
  constexpr int kShown = 3;
  std::string places, what;
  int found = 0;
  for (std::size_t i = 1; i < sources.texts.size(); ++i)
    for (const std::string& e : elements)
      for (const StartTag& tag : start_tags(sources.texts[i], e)) {
        if (!fits(tag)) continue;
        if (found++ >= kShown) continue;
        if (what.empty())
          what = "<" + e + (attribute.empty() ? "" : " " + attribute) +
                 (object.empty() ? "" : " name=\"" + object + "\"") + ">";
        places += (places.empty() ? "" : ", ") + sources.paths[i] + " line " +
                  std::to_string(line_of(sources.texts[i], tag.begin));
      }
  if (found == 0) return "";
  if (found > kShown) places += " and " + std::to_string(found - kShown) + " more";
  return " (in an included file: " + what + " at " + places + ")";
}

}  // namespace ikwb
