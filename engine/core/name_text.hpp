// Names from files as messages show them: a control character (a line break written as &#10; in
// a name) escaped, so that a warning naming it stays one line of text.
#pragma once

#include <string>

namespace ikwb {

// s with its control characters written as \n, \t, \r or \xNN; empty when it has none
std::string control_escaped(const std::string& s);

// s as a message shows it: control_escaped where it has a control character, else s itself
std::string printable_name(const std::string& s);

}  // namespace ikwb
