; Inno Setup script: wraps the PyInstaller one-folder build (dist\tutor-app) into an installer.
; Build on Windows: `bash packaging/build.sh` (or pyinstaller packaging\tutor-app.spec), then
; `iscc packaging\windows\tutor-app.iss`.
#define AppVersion "0.1.0"
[Setup]
AppId={{6D1B3C1E-8A0B-4C5E-9E43-7B1F2A9C0D11}
AppName=Tutor
AppVersion={#AppVersion}
AppPublisher=Tutor
DefaultDirName={autopf}\Tutor
DefaultGroupName=Tutor
OutputDir=..\..\dist
OutputBaseFilename=tutor-app-{#AppVersion}-setup
Compression=lzma2
SolidCompression=yes
PrivilegesRequired=lowest
ArchitecturesInstallIn64BitMode=x64compatible
[Files]
Source: "..\..\dist\tutor-app\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion
[Icons]
Name: "{group}\Tutor"; Filename: "{app}\tutor-app.exe"; Parameters: "gui"
Name: "{autodesktop}\Tutor"; Filename: "{app}\tutor-app.exe"; Parameters: "gui"; Tasks: desktopicon
[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked
[Run]
Filename: "{app}\tutor-app.exe"; Parameters: "gui"; Description: "Start Tutor"; Flags: nowait postinstall skipifsilent
