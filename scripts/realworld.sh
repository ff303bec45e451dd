#!/usr/bin/env bash
# Installs the real-world page corpus (tests/realworld/): pages nobody on the team wrote.
#   - Debian documentation packages made by many generators, with the packages their pages
#     link their scripts, styles and fonts from, pinned by version and sha256 in
#     tests/realworld/debs.txt. They are downloaded with apt-get from the machine's Debian
#     archive (its own package lists are not touched) and unpacked with dpkg-deb, never
#     installed: each Debian release in the list gets one tree, debian-<release>/, laid out as
#     the system would be, so the pages' links into /usr/share/javascript and friends resolve.
#     Absolute symlinks are re-pointed inside that tree.
#   - npm packages whose published tarballs carry demo and test pages, pinned by
#     tests/realworld/package.json and package-lock.json, installed with npm ci into npm/.
# Everything lands in ${FLEET_REALWORLD_DIR:-$HOME/.cache/servo-fleet/realworld}; a second run
# with nothing changed returns at once. tests/realworld/pages.json names the pages.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=$here/tests/realworld
dir=${FLEET_REALWORLD_DIR:-$HOME/.cache/servo-fleet/realworld}
manifest=$spec/debs.txt

# The stamp covers every input; when it matches, the corpus is complete and untouched inputs
# need no second look.
stamp=$(cat "$manifest" "$spec/package.json" "$spec/package-lock.json" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$stamp" ]; then
  echo "realworld: corpus present in $dir"
  exit 0
fi
rm -f "$dir/.complete"
mkdir -p "$dir/debs"

# Manifest lines: release package version sha256 (comments and blank lines skipped).
mapfile -t entries < <(grep -v -E '^\s*(#|$)' "$manifest")
[ "${#entries[@]}" -gt 0 ] || { echo "realworld: $manifest lists no packages" >&2; exit 1; }
deb_path() { echo "$dir/debs/$1/${2}_${3//:/%3a}.deb"; }

# --- Debian packages: download what is missing ---------------------------------------------
missing=()
for e in "${entries[@]}"; do
  read -r rel pkg ver sha <<<"$e"
  [ -n "${sha:-}" ] || { echo "realworld: bad manifest line: $e" >&2; exit 1; }
  f=$(deb_path "$rel" "$pkg" "$ver")
  [ -f "$f" ] || missing+=("$e")
done

if [ "${#missing[@]}" -gt 0 ]; then
  # The archive address comes from the machine's own apt sources (or FLEET_DEBIAN_MIRROR);
  # the releases come from the manifest. A private apt state keeps the system's lists as they are.
  mirror=${FLEET_DEBIAN_MIRROR:-}
  if [ -z "$mirror" ]; then
    mirror=$(awk '
      /^[Uu][Rr][Ii][Ss]:/ { uri = $2 }
      /^[Ss]uites:/ { suites = $0 }
      /^[Ss]igned-[Bb]y:/ { signed = $0 }
      /^$/ { if (uri && suites !~ /security/ && signed ~ /debian-archive-keyring/) { print uri; exit } uri = ""; suites = ""; signed = "" }
      END { if (uri && suites !~ /security/ && signed ~ /debian-archive-keyring/) print uri }
    ' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  fi
  if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($(i+1) !~ /security|updates/ && $i ~ /debian/) { print $i; exit } break } }' /etc/apt/sources.list)
  fi
  [ -n "$mirror" ] || { echo "realworld: no Debian archive found in /etc/apt sources; set FLEET_DEBIAN_MIRROR" >&2; exit 1; }
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -f "$keyring" ] || { echo "realworld: $keyring is missing (package debian-archive-keyring)" >&2; exit 1; }

  apt_dir=$dir/apt
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial"
  : >"$apt_dir/sources.list"
  for rel in $(printf '%s\n' "${entries[@]}" | awk '{print $1}' | sort -u); do
    echo "deb [signed-by=$keyring] $mirror $rel main" >>"$apt_dir/sources.list"
  done
  {
    echo "Dir::State \"$apt_dir/state\";"
    echo "Dir::State::status \"/dev/null\";"
    echo "Dir::Cache \"$apt_dir/cache\";"
    echo "Dir::Etc::SourceList \"$apt_dir/sources.list\";"
    echo "Dir::Etc::SourceParts \"/dev/null\";"
    echo "APT::Architecture \"amd64\";"
    echo "Acquire::Languages \"none\";"
    for t in DEP-11 DEP-11-icons DEP-11-icons-small DEP-11-icons-large DEP-11-icons-hidpi; do
      echo "Acquire::IndexTargets::deb::$t::DefaultEnabled \"false\";"
    done
    [ "$(id -u)" -ne 0 ] || echo "APT::Sandbox::User \"root\";"
  } >"$apt_dir/apt.conf"
  export APT_CONFIG=$apt_dir/apt.conf
  echo "realworld: downloading ${#missing[@]} Debian packages"
  apt-get -qq update
  tmp=$dir/debs/.tmp
  rm -rf "$tmp" && mkdir -p "$tmp"
  specs=()
  for e in "${missing[@]}"; do
    read -r rel pkg ver sha <<<"$e"
    specs+=("$pkg=$ver")
  done
  # One apt-get call for all: each call reads the package lists again.
  if ! (cd "$tmp" && apt-get -qq download "${specs[@]}" >/dev/null); then
    for e in "${missing[@]}"; do
      read -r rel pkg ver sha <<<"$e"
      apt-cache show "$pkg=$ver" >/dev/null 2>&1 ||
        echo "realworld: $pkg $ver is not in Debian $rel any more; pin the version it has now (apt-cache policy $pkg) with its sha256 in $manifest" >&2
    done
    exit 1
  fi
  # A version that two releases share arrives once and is kept for each.
  for e in "${missing[@]}"; do
    read -r rel pkg ver sha <<<"$e"
    f=$(deb_path "$rel" "$pkg" "$ver")
    mkdir -p "$(dirname "$f")"
    cp "$tmp/${pkg}_${ver//:/%3a}_"*.deb "$f"
  done
  rm -rf "$tmp"
fi

# Every .deb is checked against its pinned sha256 whenever the corpus is (re)assembled.
for e in "${entries[@]}"; do
  read -r rel pkg ver sha <<<"$e"
  echo "$sha  $(deb_path "$rel" "$pkg" "$ver")"
done | sha256sum --check --quiet --strict || {
  echo "realworld: a downloaded package does not match its pinned sha256 (delete it from $dir/debs to fetch it again)" >&2
  exit 1
}

# Packages the manifest no longer names are dropped.
keep=$(for e in "${entries[@]}"; do read -r rel pkg ver sha <<<"$e"; deb_path "$rel" "$pkg" "$ver"; done)
find "$dir/debs" -name "*.deb" | { grep -v -x -F "$keep" || true; } | xargs -r rm -f

# --- Debian packages: one unpacked tree per release ---------------------------------------
for rel in $(printf '%s\n' "${entries[@]}" | awk '{print $1}' | sort -u); do
  tree=$dir/debian-$rel
  want=$(printf '%s\n' "${entries[@]}" | awk -v r="$rel" '$1 == r' | sha256sum | cut -d' ' -f1)
  if [ -f "$tree/.manifest" ] && [ "$(cat "$tree/.manifest")" = "$want" ]; then
    continue
  fi
  echo "realworld: unpacking Debian $rel"
  rm -rf "$tree.tmp" && mkdir -p "$tree.tmp"
  for e in "${entries[@]}"; do
    read -r r pkg ver sha <<<"$e"
    [ "$r" = "$rel" ] || continue
    dpkg-deb -x "$(deb_path "$r" "$pkg" "$ver")" "$tree.tmp"
  done
  # A link to /usr/share/javascript/... must find the copy in this tree, not the machine's.
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    rel_target=$(realpath -s -m --relative-to="$(dirname "$link")" "$tree.tmp$target")
    ln -sfn "$rel_target" "$link"
  done < <(find "$tree.tmp" -type l -lname '/*' -print0)
  dangling=$(find "$tree.tmp" -xtype l | wc -l)
  [ "$dangling" -eq 0 ] || echo "realworld: note: $dangling links in Debian $rel point to packages the corpus does not need"
  echo "$want" >"$tree.tmp/.manifest"
  rm -rf "$tree" && mv "$tree.tmp" "$tree"
done

# --- npm packages -------------------------------------------------------------------------
command -v npm >/dev/null || { echo "realworld: npm is missing (scripts/setup.sh installs it)" >&2; exit 1; }
mkdir -p "$dir/npm"
if ! cmp -s "$spec/package-lock.json" "$dir/npm/package-lock.json" || [ ! -f "$dir/npm/node_modules/.package-lock.json" ]; then
  echo "realworld: installing npm packages"
  cp "$spec/package.json" "$spec/package-lock.json" "$dir/npm/"
  # Install scripts are not needed to serve a package's files, so none run.
  (cd "$dir/npm" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null)
fi

echo "$stamp" >"$dir/.complete"
echo "realworld: corpus ready in $dir ($(du -sh "$dir/debs" | cut -f1) of Debian packages)"
