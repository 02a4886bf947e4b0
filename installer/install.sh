#!/bin/sh
# DSH-DREAM installer for Linux and macOS. A thin front end: it checks for Node.js 22+, maps its
# options onto the Node installer (installer/install.cjs) and exits with that program's exit code;
# every install step, check and rollback lives in the Node program.
#
#   sh install.sh [--force] [--profile NAME] [--dsh-home DIR] [--download-model [--mirror URL]]
#                 [--uninstall [--remove-data]]
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)

usage() {
  cat <<'EOF'
Usage: sh install.sh [options]
  --force           reinstall when dsh-dream is already installed (memory data is kept)
  --profile NAME    DSH profile (default: web; desktop when only DSH Desktop's profile exists)
  --dsh-home DIR    DSH home (default: $DSH_HOME, else ~/.dsh)
  --uninstall       remove dsh-dream from the profile; memory data is kept
  --remove-data     with --uninstall: also delete the memory data
  --download-model  after installing, download the local embedding model (about 25 MB); an
                    interactive run asks; later: Settings > DSH-DREAM or `dsh-dream download-model`
  --mirror URL      with --download-model: a mirror of the Hugging Face hub (or set HF_ENDPOINT)
  --json            print the report as JSON
EOF
}

# Rebuild "$@" as the Node installer's arguments (POSIX sh has no arrays): each original argument
# is shifted off the front and its mapping appended at the back.
count=$#
while [ "$count" -gt 0 ]; do
  arg=$1
  shift
  count=$((count - 1))
  case $arg in
    --force | --uninstall | --remove-data | --download-model | --json)
      set -- "$@" "$arg"
      ;;
    --profile | --dsh-home | --mirror)
      if [ "$count" -eq 0 ]; then
        echo "install.sh: $arg needs a value" >&2
        exit 2
      fi
      set -- "$@" "$arg" "$1"
      shift
      count=$((count - 1))
      ;;
    --profile=* | --dsh-home=* | --mirror=*)
      set -- "$@" "$arg"
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "install.sh: unknown option $arg" >&2
      usage >&2
      exit 2
      ;;
  esac
done

if ! command -v node >/dev/null 2>&1; then
  echo "DSH-DREAM needs Node.js 22 or newer, and no 'node' was found on PATH." >&2
  echo "Install Node.js 22+ from https://nodejs.org/ (or: nvm install 22), then run this again." >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
case $major in
  '' | *[!0-9]*) major=0 ;;
esac
if [ "$major" -lt 22 ]; then
  echo "DSH-DREAM needs Node.js 22 or newer (DSH itself does), but 'node' on PATH is $(node --version)." >&2
  echo "Install Node.js 22+ from https://nodejs.org/ (or: nvm install 22), then run this again." >&2
  exit 1
fi

exec node "$here/installer/install.cjs" "$@" --bundle "$here/bundle"
