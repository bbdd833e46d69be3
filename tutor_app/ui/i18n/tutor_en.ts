<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
  <context>
    <name>MainWindow</name>
    <message numerus="yes">
      <location filename="../main_window.py" line="288" />
      <source> (and %n more)</source>
      <translation>
        <numerusform> (and %n more)</numerusform>
        <numerusform> (and %n more)</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../main_window.py" line="306" />
      <source>Your last %n calls ended unexpectedly</source>
      <translation>
        <numerusform>Your last call ended unexpectedly</numerusform>
        <numerusform>Your last %n calls ended unexpectedly</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>MemoryPanel</name>
    <message numerus="yes">
      <location filename="../memory_panel.py" line="214" />
      <source>%n memories</source>
      <translation>
        <numerusform>%n memory</numerusform>
        <numerusform>%n memories</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../memory_panel.py" line="215" />
      <source>, %n replaced</source>
      <translation>
        <numerusform>, %n replaced</numerusform>
        <numerusform>, %n replaced</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../memory_panel.py" line="285" />
      <source>%n found</source>
      <translation>
        <numerusform>%n found</numerusform>
        <numerusform>%n found</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../memory_panel.py" line="342" />
      <source>Erase everything the tutor remembers about %1 (%n memories), including past call transcripts and reports? This cannot be undone.</source>
      <translation>
        <numerusform>Erase everything the tutor remembers about %1 (%n memory), including past call transcripts and reports? This cannot be undone.</numerusform>
        <numerusform>Erase everything the tutor remembers about %1 (%n memories), including past call transcripts and reports? This cannot be undone.</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../memory_panel.py" line="362" />
      <source>Exported %n memories.</source>
      <translation>
        <numerusform>Exported %n memory.</numerusform>
        <numerusform>Exported %n memories.</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>ReportView</name>
    <message numerus="yes">
      <location filename="../report_view.py" line="140" />
      <source> · %n turn(s)</source>
      <translation>
        <numerusform> · %n turn</numerusform>
        <numerusform> · %n turns</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <location filename="../report_view.py" line="141" />
      <source> · %n with memory paused, not in this report</source>
      <translation>
        <numerusform> · %n with memory paused, not in this report</numerusform>
        <numerusform> · %n with memory paused, not in this report</numerusform>
      </translation>
    </message>
  </context>
</TS>