# shellcheck shell=bash
# Puts the Node.js that ianode is built and tested on first on PATH, whatever the machine's own
# `node` is: the exact version in .node-version (the current LTS; CI uses it), or the one given.
#
#   source scripts/use-node.sh            # the version in .node-version
#   source scripts/use-node.sh 22.23.5    # another exact version, e.g. to try the oldest line
#   eval "$(bash scripts/use-node.sh)"    # the same, printed as export lines (bash, zsh)
#
# The binary comes from the package registry npm already uses: the official build is published
# there as the package `node-<os>-<arch>` (bin/node and the C/C++ headers in include/node), so
# nothing is needed but npm. `npm pack` fetches it (checking the registry's integrity hash) into
# ${XDG_CACHE_HOME:-~/.cache}/ianode/node-v<version>-<os>-<arch>; later runs find it there and only
# check `node --version`. Sets PATH (that bin first, any other version cached here taken off) and
# npm_config_nodedir (its headers), so that a native addon npm builds with node-gyp is compiled
# against the Node that will load it, not against a nodedir from ~/.npmrc or a download.

_ianode_use_node() {
  local root version os arch pkg cache dir tmp tgz entry rest newpath
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || return 1
  version=${1:-}
  if [ -z "$version" ]; then
    version=$(tr -d ' \t\r\n' <"$root/.node-version") || return 1
  fi
  version=${version#v}
  case $version in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "use-node: '$version' is not an exact Node version (x.y.z)" >&2; return 1 ;;
  esac
  case $(uname -s) in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "use-node: no node package for $(uname -s); install Node $version yourself" >&2; return 1 ;;
  esac
  case $(uname -m) in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "use-node: no node package for $(uname -m); install Node $version yourself" >&2; return 1 ;;
  esac
  pkg=node-$os-$arch
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/ianode
  dir=$cache/node-v$version-$os-$arch

  if [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$version" ]; then
    echo "use-node: fetching Node $version ($pkg@$version) into $dir" >&2
    mkdir -p "$cache" || return 1
    tmp=$(mktemp -d "$cache/.node-v$version.XXXXXX") || return 1
    if tgz=$(cd "$tmp" && npm pack --loglevel=error --pack-destination "$tmp" "$pkg@$version") &&
      mkdir "$tmp/node" && tar -xzf "$tmp/$tgz" -C "$tmp/node" --strip-components=1 &&
      [ "$("$tmp/node/bin/node" --version 2>/dev/null)" = "v$version" ]; then
      rm -rf "$dir" && mv "$tmp/node" "$dir"
    fi
    rm -rf "$tmp"
    if [ "$("$dir/bin/node" --version 2>/dev/null)" != "v$version" ]; then
      echo "use-node: could not install $pkg@$version into $dir" >&2
      return 1
    fi
  fi

  # PATH: this version's bin first, and no other node that this script put there before.
  newpath=$dir/bin
  rest=$PATH:
  while [ -n "$rest" ]; do
    entry=${rest%%:*}
    rest=${rest#*:}
    case $entry in
      "$dir/bin" | "$cache"/node-v*/bin) ;;
      *) newpath=$newpath:$entry ;;
    esac
  done
  export PATH=$newpath
  export npm_config_nodedir=$dir
  hash -r 2>/dev/null
  return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # Run, not sourced: print what to export.
  _ianode_use_node "$@" || exit 1
  printf 'export PATH=%q npm_config_nodedir=%q\n' "$PATH" "$npm_config_nodedir"
elif _ianode_use_node "$@"; then
  unset -f _ianode_use_node
else
  unset -f _ianode_use_node
  return 1
fi
