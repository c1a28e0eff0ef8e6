"""What baremobile knows about Android, without I/O. Bytes or text in, values out: every
module here is testable without a device.

* Command lines built and quoted (:mod:`~baremobile.android.shell_words`), typing plans
  (:mod:`~baremobile.android.text_input`), key codes (:mod:`~baremobile.android.keycodes`),
  gesture plans and touch events (:mod:`~baremobile.android.gestures`,
  :mod:`~baremobile.android.touch_events`), APK labels (:mod:`~baremobile.android.apk`),
  PNG checks (:mod:`~baremobile.android.png`).
* What Android prints: one parser per shell command family. Each takes the bytes (or text)
  a command printed and returns a typed value (frozen dataclasses) or raises a
  :mod:`baremobile.errors` type. They read the formats of real devices from Android 4.x to
  16, toybox and toolbox, and vendors' additions; each cites the AOSP source that defines its
  format. The formats and the real samples that prove them: ``docs/devices.md``.
"""
