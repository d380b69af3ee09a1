// Tests for app/gui/timeline_view: which keys are drawn as ghosts (a scene of 1,000 keys drew
// every one, and its frames took seconds). No window.
#include "app/gui/timeline_view.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace ikwb::gui {
namespace {

Timeline keys_at_seconds(int n) {
  Timeline t;
  Keyframe key;
  for (int k = 0; k < n; ++k) {
    key.time = k;
    t.keys.push_back(key);
  }
  return t;
}

std::vector<int> range(int first, int count) {
  std::vector<int> r(count);
  std::iota(r.begin(), r.end(), first);
  return r;
}

TEST(KeyGhosts, AllOfAFewKeys) {
  EXPECT_EQ(key_ghosts_shown(keys_at_seconds(10), 3.0, -1), range(0, 10));
  EXPECT_EQ(key_ghosts_shown(keys_at_seconds(kMaxKeyGhosts), 3.0, 2), range(0, kMaxKeyGhosts));
  EXPECT_TRUE(key_ghosts_shown(keys_at_seconds(0), 0.0, -1).empty());
}

TEST(KeyGhosts, OfManyTheNearestThePlayheadAndTheSelectedOne) {
  const Timeline t = keys_at_seconds(1000);
  const int half = kMaxKeyGhosts / 2;
  EXPECT_EQ(key_ghosts_shown(t, 500.0, -1), range(500 - half, kMaxKeyGhosts));
  EXPECT_EQ(key_ghosts_shown(t, 499.5, -1), range(500 - half, kMaxKeyGhosts));
  EXPECT_EQ(key_ghosts_shown(t, -5.0, -1), range(0, kMaxKeyGhosts));
  EXPECT_EQ(key_ghosts_shown(t, 5000.0, -1), range(1000 - kMaxKeyGhosts, kMaxKeyGhosts));
  std::vector<int> with_selected = range(500 - half, kMaxKeyGhosts);
  with_selected.insert(with_selected.begin(), 7);
  EXPECT_EQ(key_ghosts_shown(t, 500.0, 7), with_selected);
  with_selected = range(500 - half, kMaxKeyGhosts);
  with_selected.push_back(900);
  EXPECT_EQ(key_ghosts_shown(t, 500.0, 900), with_selected);
  EXPECT_EQ(key_ghosts_shown(t, 500.0, 500), range(500 - half, kMaxKeyGhosts));
}

}  // namespace
}  // namespace ikwb::gui
