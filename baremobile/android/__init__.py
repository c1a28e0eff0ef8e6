"""What Android prints, read without I/O: one sans-I/O parser per shell command family.

Each module takes the bytes (or text) a command printed and returns a typed value (frozen
dataclasses) or raises a :mod:`baremobile.errors` type; none of them talks to a device.
They read the formats of real devices from Android 4.x to 16, toybox and toolbox, and
vendors' additions; each cites the AOSP source that defines its format. The formats and the
real samples that prove them: ``docs/devices.md``.
"""
