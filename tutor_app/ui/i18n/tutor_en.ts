<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
  <context>
    <name>MainWindow</name>
    <message numerus="yes">
      <source> (and %n more)</source>
      <translation>
        <numerusform> (and %n more)</numerusform>
        <numerusform> (and %n more)</numerusform>
      </translation>
    </message>
    <message numerus="yes">
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
      <source>%n memories</source>
      <translation>
        <numerusform>%n memory</numerusform>
        <numerusform>%n memories</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>, %n replaced</source>
      <translation>
        <numerusform>, %n replaced</numerusform>
        <numerusform>, %n replaced</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n found</source>
      <translation>
        <numerusform>%n found</numerusform>
        <numerusform>%n found</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>Erase everything the tutor remembers about %1 (%n memories), including past call transcripts and reports? This cannot be undone.</source>
      <translation>
        <numerusform>Erase everything the tutor remembers about %1 (%n memory), including past call transcripts and reports? This cannot be undone.</numerusform>
        <numerusform>Erase everything the tutor remembers about %1 (%n memories), including past call transcripts and reports? This cannot be undone.</numerusform>
      </translation>
    </message>
    <message numerus="yes">
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
      <source> · %n turn(s)</source>
      <translation>
        <numerusform> · %n turn</numerusform>
        <numerusform> · %n turns</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source> · %n with memory paused, not in this report</source>
      <translation>
        <numerusform> · %n with memory paused, not in this report</numerusform>
        <numerusform> · %n with memory paused, not in this report</numerusform>
      </translation>
    </message>
  </context>
</TS>