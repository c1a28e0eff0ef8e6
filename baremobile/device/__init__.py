"""The device layer: Android shell verbs over a :class:`~baremobile.transport.Transport`.

:mod:`~baremobile.device.core` is :class:`Device` (running commands; properties, the
screen, focus, the streamed dump, screencap, input, activities, ranged file reads); the
verb families over it: :mod:`~baremobile.device.apps` (listing, labels, uninstall),
:mod:`~baremobile.device.files` (listings, delete, append), :mod:`~baremobile.device.system`
(rotation, battery, the clipboard probe, logcat filters), :mod:`~baremobile.device.touch`
(the gesture routes). Command lines come from :mod:`baremobile.android` (no I/O).
"""
