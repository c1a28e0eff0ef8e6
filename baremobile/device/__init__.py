"""The device layer: Android shell verbs over a :class:`~baremobile.transport.Transport`.

:mod:`~baremobile.device.core` is :class:`Device` (running commands; properties, the
screen, focus, the streamed dump, screencap, input, activities, ranged file reads). The
verb families have one shape: a class over a ``Device`` (its caches its own), which the
Page holds one of each — :class:`~baremobile.device.apps.Apps` (listing, labels, install,
permissions, uninstall), :class:`~baremobile.device.files.Files` (listings, ranged reads,
lines, delete, append, the storage roots), :class:`~baremobile.device.system.System`
(display 0 and rotation, battery, the status bar, the clipboard probe, the log),
:class:`~baremobile.device.prefs.Prefs` (an app's SharedPreferences through ``run-as``),
:class:`~baremobile.device.touch.Touch` (the gesture routes). Command lines and the parsing
of what the device prints come from :mod:`baremobile.android` (no I/O).
"""
