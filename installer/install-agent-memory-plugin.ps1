<#
.SYNOPSIS
Installs (or removes) the DSH-DREAM memory plugin in a DSH profile.

.DESCRIPTION
A thin front end: it checks for Node.js 22+, maps its parameters onto the Node installer
(installer\install.cjs next to this script) and exits with that program's exit code. Every install
step, check and rollback lives in the Node program, which is tested; this script cannot be run in
the project's CI (no PowerShell there), so it is kept to argument mapping only.

.PARAMETER Force
Reinstall when dsh-dream is already installed (memory data is kept).

.PARAMETER Profile
DSH profile to install into (default: web; desktop when only DSH Desktop's profile exists).

.PARAMETER DshHome
DSH home folder (default: $env:DSH_HOME, else $env:USERPROFILE\.dsh).

.PARAMETER Uninstall
Remove dsh-dream from the profile; memory data is kept.

.PARAMETER RemoveData
With -Uninstall: also delete the memory data (<DSH home>\dsh-dream).

.PARAMETER DownloadModel
After installing, download the local embedding model (about 25 MB); it can also be done later
from Settings > DSH-DREAM or with `dsh-dream download-model`. Without it, an interactive run asks.

.PARAMETER Mirror
With -DownloadModel: a mirror of the Hugging Face hub, e.g. https://hf-mirror.com/.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File .\install-agent-memory-plugin.ps1 -Force
#>
# -Profile shadows PowerShell's automatic $PROFILE inside this script only; the name is the one
# users are told to type, and the script never reads its own PowerShell profile path.
[CmdletBinding()]
param(
    [switch]$Force,
    [string]$Profile = "",
    [string]$DshHome = "",
    [switch]$Uninstall,
    [switch]$RemoveData,
    [switch]$DownloadModel,
    [string]$Mirror = ""
)

$ErrorActionPreference = 'Stop'

$node = Get-Command node -CommandType Application -ErrorAction SilentlyContinue | Select-Object -First 1
if (-not $node) {
    Write-Host "DSH-DREAM needs Node.js 22 or newer, and no 'node' was found on PATH." -ForegroundColor Red
    Write-Host "Install Node.js 22+ from https://nodejs.org/ (or: winget install OpenJS.NodeJS.LTS), open a new terminal, then run this again." -ForegroundColor Red
    exit 1
}
$nodeVersion = (& $node.Source --version).Trim()
$major = 0
[void][int]::TryParse($nodeVersion.TrimStart('v').Split('.')[0], [ref]$major)
if ($major -lt 22) {
    Write-Host "DSH-DREAM needs Node.js 22 or newer (DSH itself does), but 'node' on PATH is $nodeVersion." -ForegroundColor Red
    Write-Host "Install Node.js 22+ from https://nodejs.org/ (or: winget install OpenJS.NodeJS.LTS), open a new terminal, then run this again." -ForegroundColor Red
    exit 1
}

$nodeArgs = @("$PSScriptRoot\installer\install.cjs")
if ($Force) { $nodeArgs += '--force' }
if ($Profile) { $nodeArgs += @('--profile', $Profile) }
# Windows PowerShell quotes an argument containing spaces but leaves a trailing backslash to
# escape that closing quote ("C:\My Home\" breaks), so drop trailing backslashes except after "C:".
if ($DshHome) { $nodeArgs += @('--dsh-home', ($DshHome -replace '(?<=[^:])\\+$', '')) }
if ($Uninstall) { $nodeArgs += '--uninstall' }
if ($RemoveData) { $nodeArgs += '--remove-data' }
if ($DownloadModel) { $nodeArgs += '--download-model' }
if ($Mirror) { $nodeArgs += @('--mirror', $Mirror) }
$nodeArgs += @('--bundle', "$PSScriptRoot\bundle")

# The Node installer writes its progress to stderr. Under 'Stop', Windows PowerShell 5.1 turns the
# first stderr line of a native program into a terminating error when stderr is redirected (ISE,
# *>, 2>&1), stopping this script mid-install: native output is never an error here, the exit code is.
$ErrorActionPreference = 'Continue'
& $node.Source @nodeArgs
$code = $LASTEXITCODE
$ErrorActionPreference = 'Stop'

# The one thing the Node installer leaves to this script: the installer writes the dsh-dream
# command to <DSH home>\bin, and that folder goes on the user's PATH (read and written unexpanded,
# so %VARIABLES% in it survive); an uninstall that removed the command takes the folder off again.
if ($code -eq 0) {
    # The same home the Node installer chose: -DshHome, DSH_HOME, %USERPROFILE%\.dsh, else DSH Desktop's.
    $desktopHome = Join-Path $env:APPDATA 'DSH Desktop\harness'
    $cliHome = Join-Path $env:USERPROFILE '.dsh'
    $dshHomeDir = if ($DshHome) { $DshHome } elseif ($env:DSH_HOME) { $env:DSH_HOME } elseif (-not (Test-Path $cliHome) -and (Test-Path $desktopHome)) { $desktopHome } else { $cliHome }
    $binDir = (Join-Path $dshHomeDir 'bin') -replace '\\+$', ''
    $environment = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $true)
    $userPath = [string]$environment.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
    $entries = @($userPath -split ';' | Where-Object { $_ -ne '' })
    $hasCommand = Test-Path (Join-Path $binDir 'dsh-dream.cmd')
    $changed = $false
    if ($hasCommand -and -not ($entries -contains $binDir)) {
        $environment.SetValue('Path', (($entries + $binDir) -join ';'), [Microsoft.Win32.RegistryValueKind]::ExpandString)
        $env:Path = "$env:Path;$binDir"
        Write-Host "Added $binDir to your user PATH: the dsh-dream command works in new terminals."
        $changed = $true
    } elseif ($Uninstall -and -not $hasCommand -and ($entries -contains $binDir)) {
        $environment.SetValue('Path', (($entries | Where-Object { $_ -ne $binDir }) -join ';'), [Microsoft.Win32.RegistryValueKind]::ExpandString)
        Write-Host "Removed $binDir from your user PATH."
        $changed = $true
    }
    $environment.Close()
    # Setting any user variable broadcasts WM_SETTINGCHANGE, so Explorer and new terminals see the new PATH.
    if ($changed) { [Environment]::SetEnvironmentVariable('DSH_DREAM_PATH_UPDATED', $null, 'User') }
}
exit $code
