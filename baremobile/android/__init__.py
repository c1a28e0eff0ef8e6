"""What baremobile knows about Android, without I/O: command lines built and quoted
(:mod:`~baremobile.android.shell_words`), typing plans (:mod:`~baremobile.android.text_input`),
key codes (:mod:`~baremobile.android.keycodes`), gesture plans and touch events
(:mod:`~baremobile.android.gestures`, :mod:`~baremobile.android.touch_events`), APK labels
(:mod:`~baremobile.android.apk`), PNG checks (:mod:`~baremobile.android.png`), and one
parser per command's output. Bytes or text in, values out: every module here is testable
without a device.
"""
