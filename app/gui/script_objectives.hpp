// The script's objective commands, generic over the kind table (engine/core/objective_kinds.hpp):
//   add KIND [LINK [LINK_B]] [FIELD VALUE...] [hard] [null_space]
//   set INDEX FIELD VALUE...
// FIELD is a scene key the kind reads: offset X Y Z, offset_b X Y Z (lengths: 0.1, 10cm, 5mm),
// distance D, weight W, position_weights X Y Z, rotation_weights X Y Z, hard on|off (with set),
// null_space on|off (with set), name NAME.
#pragma once

#include <string>
#include <vector>

#include "app/gui/app_state.hpp"

namespace ikwb::gui {

// args[0] is the command word. Returns false and sets *error naming the bad word.
bool script_add_objective(AppState& app, const std::vector<std::string>& args, std::string* error);
bool script_set_objective(AppState& app, const std::vector<std::string>& args, std::string* error);

}  // namespace ikwb::gui
