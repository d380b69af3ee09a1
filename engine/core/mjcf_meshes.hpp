// Mesh files of an MJCF that MuJoCo 2.2.2 cannot read, given to it in memory through its virtual
// file system (mjVFS) so that the robot still loads (kinematics never need meshes): an ASCII STL
// (2.2.2 reads binary STL only) as a binary STL of the same triangles; a file that is missing,
// that 2.2.2 would crash on (an OBJ with fewer than 4 vertices) or that it refuses, as a
// placeholder: a tiny cube in the file's format, which the Model shows as a placeholder box and
// fits no collision capsule to. MuJoCo 2.2.2 looks a file up in its VFS by its name alone (no
// folders, any case), so a mesh file named like a replaced one in another folder becomes a
// placeholder too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/core/mjcf_text.hpp"

struct mjModel_;
struct mjVFS_;

namespace ikwb {

// A <mesh file="..."> asset.
struct MjcfMesh {
  std::string name;     // MuJoCo's: the name attribute, else the file's name without extension
  std::string path;     // where MuJoCo reads it (see MjcfMeshFiles)
  std::string problem;  // why it is a placeholder ("not found in FOLDER", ...); "" when it is not
};

class MjcfMeshFiles {
 public:
  // Finds the <mesh file="..."> assets of the sources where MuJoCo 2.2.2 reads them (the main
  // file's folder, then the last <compiler meshdir>, then the file; an absolute meshdir or file
  // as written; the file's name alone under <compiler strippath="true">) and replaces those
  // that it cannot read.
  explicit MjcfMeshFiles(const MjcfSources& sources);
  ~MjcfMeshFiles();
  MjcfMeshFiles(const MjcfMeshFiles&) = delete;
  MjcfMeshFiles& operator=(const MjcfMeshFiles&) = delete;

  // the files mj_loadXML reads before the disk; null when nothing is replaced
  const mjVFS_* vfs() const;
  // For MuJoCo's refusal `error` of a mesh (its message names the mesh): the mesh becomes a
  // placeholder. false when the refusal is not about a mesh, or about a placeholder.
  bool replace_refused(const std::string& error);
  bool has_placeholders() const;
  // The placeholders start large, so that MuJoCo accepts their volume and inertia whatever the
  // meshes' scale; from a model compiled with them (m), each is sized to a 2 mm cube after its
  // mesh's scale. The bodies whose masses differ between the two compiles take them from
  // placeholders.
  void size_placeholders(const mjModel_* m);
  // the placeholder that mesh `id` of m was compiled from; null when it was read as is
  const MjcfMesh* placeholder(const mjModel_* m, int id) const;
  // the bodies whose mass (and inertia), or inertia alone (their geoms' masses given), MuJoCo
  // computes from the placeholders
  struct Lost {
    std::vector<std::string> mass, inertia;
  };
  // One line per reason (not found in a folder, unreadable, refused): how many files, the first
  // few names, and what is lost: the geoms of the robot's bodies shown as placeholders and
  // those that collide, which get no collision capsules. Then the bodies of `lost`, in a line
  // for each kind.
  std::vector<std::string> warnings(const mjModel_* m, const Lost& lost) const;

 private:
  // one file given to MuJoCo in memory, under the file name of the meshes that use it
  struct Replacement {
    std::string name;       // file name (MuJoCo matches it ignoring case)
    std::string converted;  // a binary STL of the file's triangles; empty: a placeholder
    double half_size;       // the placeholder cube's half edge, before the mesh's scale
  };
  void replace(std::size_t mesh, const std::string& problem, std::string converted);
  void rebuild_vfs();

  std::vector<MjcfMesh> meshes_;
  std::vector<Replacement> files_;
  std::unique_ptr<mjVFS_> vfs_;
};

}  // namespace ikwb
