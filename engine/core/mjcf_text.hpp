// The text of an MJCF file and the files it includes, scanned without an XML parser so that
// edits keep every other byte (and so every line number) as it was: start tags and their
// attributes, and fields of MuJoCo's error messages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ikwb {

// the 1-based line of offset `pos` in `text`
int line_of(const std::string& text, std::size_t pos);

// name="value" in a start tag; [begin, end) spans it
struct TagAttribute {
  std::size_t begin, end;
  std::string name, value;
};

// a start tag <element ...>, its attributes over however many lines it runs
struct StartTag {
  std::size_t begin;
  std::vector<TagAttribute> attributes;
  std::string element;
};

// the start tags of `element` in `text` ("": of every element), comments skipped
std::vector<StartTag> start_tags(const std::string& text, const std::string& element);

// The MJCF file and the files it includes, as text, so that a repair applies wherever the
// element is (MuJoCo names no file for an included one). Include paths are relative to the
// main file's folder, as MuJoCo reads them.
struct MjcfSources {
  std::vector<std::string> paths;  // [0] the main file, then included files as found
  std::vector<std::string> texts;
};
MjcfSources read_sources(const std::string& path);

// "FILE:LINE: <ELEMENT name='N'> ATTRIBUTE=\"VALUE\": 'nan' is not a finite number" for the
// first attribute of the sources that places, sizes or weighs something (pos, quat, size, axis,
// a limited joint's range, mass, ...) and holds a number that is not finite (nan, inf, or one
// past the largest double), "...: '-3.5' is negative: a mass ..." for a negative mass,
// diaginertia or density, else "". MuJoCo 2.2.2 takes non-finite numbers with no error: a NaN
// quaternion became the identity, a NaN capsule size a point, and what it did not repair was
// blamed on a joint; a negative mass failed its compile, whose repair for files without masses
// (boundmass) then made the body massless without a word (a review's typo moved the centre of
// mass 6.4 mm).
std::string bad_number_attribute(const MjcfSources& sources);

// A <site> or <geom> (`element`) outside the <default> sections that sets an orientation
// attribute of its own (quat, axisangle, euler, xyaxes or zaxis): its name ("" without one), the
// attribute and "FILE:LINE"; in the sources' order, file by file.
struct OwnOrientation {
  std::string name, attribute, place;
};
std::vector<OwnOrientation> own_orientations(const MjcfSources& sources,
                                             const std::string& element);

// Gives the k-th entry of own_orientations(sources, element) that has no name the name
// PREFIX + k, keeping every line.
void name_own_orientations(MjcfSources& sources, const std::string& element,
                           const std::string& prefix);

// Removes the orientation attributes of the `element` tags inside the <default> sections,
// keeping every line; false when there were none. MuJoCo 2.2.2 keeps a class's euler over an
// element's own axisangle, xyaxes, zaxis or quat, where the MJCF reference (and newer MuJoCo)
// gives the element's own attribute precedence: the sources compiled again without them give
// each such site or geom its own.
bool strip_default_orientations(MjcfSources& sources, const std::string& element);

// the text after `key` in MuJoCo's message up to `end`, or ""
std::string message_field(const std::string& error, const std::string& key, char end);

// Where MuJoCo's message points in the included files: MuJoCo 2.2.2 reports an element of an
// included file at "line 0" of the main file. The start tags of the message's element (with the
// attribute it names, when it names one) in the included files, as " (in FILE line N, ...)";
// "" when the message has a line of its own or no such tag is found.
std::string included_fault_place(const std::string& error, const MjcfSources& sources);

// For MuJoCo's "unknown default class Element 'joint', line 95": " (class 'kne'; the file's
// classes: 'knee', 'hip')" from the element's tag on that line of the sources (MuJoCo names
// neither the class nor those there are); "" for another message or no such tag.
std::string unknown_class_hint(const std::string& error, const MjcfSources& sources);

}  // namespace ikwb
