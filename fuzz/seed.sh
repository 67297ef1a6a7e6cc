#!/usr/bin/env bash
# Fills corpus/<target>/ for every fuzz target: the small hand-written seeds of seeds/<target>/
# (each a feature of its format, and every input that once crashed), pieces cut from the
# OBJ assets (written again as ASCII PLY and STL), and the glTF files of assets/gltf/.
# Inputs already in the corpus stay: the corpus grows from run to run.
#
# Usage: fuzz/seed.sh
set -euo pipefail
cd "$(dirname "$0")"

targets=(obj gltf ply stl cache detect cli_rays cli_points)
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
done
for target in "${targets[@]}"; do
    if [[ -d "seeds/$target" ]]; then
        cp seeds/"$target"/* "corpus/$target/"
    fi
done

# A piece of each OBJ asset small enough to mutate quickly (a few kilobytes): its first
# vertices and the faces that use only those, positions only.
vertices=100
faces=48
for asset in cow suzanne teapot fandisk cheburashka rocker-arm; do
    obj=../assets/$asset.obj
    [[ -f $obj ]] || continue
    awk -v nv="$vertices" -v nf="$faces" '
        $1 == "v" && v < nv { v++; print "v", $2, $3, $4; next }
        $1 == "f" && f < nf {
            line = "f"
            for (i = 2; i <= NF; i++) {
                split($i, parts, "/")
                index_ = parts[1] + 0
                if (index_ < 1 || index_ > nv) next
                line = line " " parts[1]
            }
            f++
            print line
        }' "$obj" > "corpus/obj/asset-$asset.obj"
done

# The same pieces as ASCII PLY and ASCII STL (faces fanned into triangles, the first 32 of
# them: STL text is long).
for piece in corpus/obj/asset-*.obj; do
    name=$(basename "$piece" .obj)
    awk '
        $1 == "v" { v++; vx[v] = $2; vy[v] = $3; vz[v] = $4 }
        $1 == "f" { f++; n[f] = NF - 1; for (i = 2; i <= NF; i++) c[f, i - 1] = $i }
        END {
            print "ply\nformat ascii 1.0\ncomment cut from an asset by fuzz/seed.sh"
            print "element vertex " v "\nproperty float x\nproperty float y\nproperty float z"
            print "element face " f "\nproperty list uchar int vertex_indices\nend_header"
            for (i = 1; i <= v; i++) print vx[i], vy[i], vz[i]
            for (i = 1; i <= f; i++) {
                line = n[i]
                for (j = 1; j <= n[i]; j++) line = line " " c[i, j] - 1
                print line
            }
        }' "$piece" > "corpus/ply/$name.ply"
    awk -v name="$name" '
        $1 == "v" { v++; p[v] = $2 " " $3 " " $4 }
        $1 == "f" {
            for (i = 3; i < NF && t < 32; i++) {
                t++
                print "facet normal 0 0 0\n outer loop"
                print "  vertex " p[$2] "\n  vertex " p[$i] "\n  vertex " p[$(i + 1)]
                print " endloop\nendfacet"
            }
        }
        BEGIN { print "solid " name }
        END { print "endsolid " name }' "$piece" > "corpus/stl/$name.stl"
done

# glTF files small enough to be seeds (those with embedded buffers load from bytes).
for gltf in ../assets/gltf/*.gltf ../assets/gltf/*.glb; do
    [[ -f $gltf ]] || continue
    if (($(wc -c < "$gltf") <= 65536)); then
        cp "$gltf" corpus/gltf/
    fi
done

# Format detection sees every format.
for target in obj gltf ply stl cache; do
    cp corpus/"$target"/* corpus/detect/ 2>/dev/null || true
done
