"""How Android's binder services print a shell command's exception (``am``, ``pm``, ``input``
... run through ``cmd``): the Java stack trace a real device writes."""

from __future__ import annotations

__all__ = ["binder_tail", "java_exception"]


def binder_tail(service_class: str, service_file: str, line: int, stub: str,
                stub_line: int) -> list[str]:
    """The stack frames below a binder ``onShellCommand`` (as real devices print them)."""
    return [
        "com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
        "android.os.ShellCommand.exec(ShellCommand.java:38)",
        f"{service_class}.onShellCommand({service_file}:{line})",
        "android.os.Binder.shellCommand(Binder.java:1068)",
        "android.os.Binder.onTransact(Binder.java:888)",
        f"{stub}.onTransact({stub.rsplit('.', 1)[-1].split('$')[0]}.java:{stub_line})",
        "android.os.Binder.execTransactInternal(Binder.java:1344)",
        "android.os.Binder.execTransact(Binder.java:1275)",
    ]


def java_exception(cmd: str | None, exception: str, frames: list[str], api: int = 35) -> str:
    """What a binder shell command prints when it throws, in the words of the release at
    ``api``: ``BasicShellCommandHandler.exec`` (Android 11+) prints a blank line, ``Exception
    occurred while executing 'CMD':`` and the trace; ``ShellCommand.exec`` before it says
    ``Exception occurred while executing:`` (Android 8–10) or ``… while dumping:`` (7), and
    for a ``SecurityException`` ``Security exception: MESSAGE``, a blank line, the trace."""
    trace = [exception] + [f"\tat {f}" for f in frames]
    if api >= 30:
        lines = ["", f"Exception occurred while executing '{cmd}':", *trace]
    elif exception.startswith("java.lang.SecurityException"):
        lines = ["Security exception: " + exception.partition(": ")[2], "", *trace]
    else:
        verb = "executing" if api >= 26 else "dumping"
        lines = ["", f"Exception occurred while {verb}:", *trace]
    return "\n".join(lines) + "\n"
