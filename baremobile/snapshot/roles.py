"""Android class name → snapshot role.

A role is the one short word an agent reads first on every line (``Button``, ``Text``,
``TextInput``…). It comes from the node's ``class`` attribute:

1. an exact entry in :data:`ROLES` (the JS original's 27 classes, their AndroidX / Material /
   support-library twins, and the Compose and framework classes seen in real dumps);
2. otherwise a suffix rule (``…EditText`` is a ``TextInput``, ``…Layout`` a ``Group`` …), so
   custom subclasses such as ``cn.futu.uikit.widget.textview.FtTextView`` still read right;
3. otherwise the last segment of the class name, or ``View`` when that segment looks
   obfuscated (``X.joV``, ``d9.k``, ``com.horcrux.svg.H``) or is empty.

:func:`class_info` caches the answer per class name, so the streaming pruner pays one dict
lookup per node.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "ROLES",
    "WRAPPER_ROLES",
    "ClassInfo",
    "class_info",
    "role_for_class",
]

_W = "android.widget."
_AX = "androidx.appcompat.widget."
_V7 = "android.support.v7.widget."
_MAT = "com.google.android.material."

#: Exact class name → role.
ROLES: dict[str, str] = {
    # text
    _W + "TextView": "Text",
    _AX + "AppCompatTextView": "Text",
    _V7 + "AppCompatTextView": "Text",
    _MAT + "textview.MaterialTextView": "Text",
    _W + "TextSwitcher": "Text",
    _W + "TextClock": "Text",
    _W + "Chronometer": "Text",
    # editable text
    _W + "EditText": "TextInput",
    _AX + "AppCompatEditText": "TextInput",
    _V7 + "AppCompatEditText": "TextInput",
    _MAT + "textfield.TextInputEditText": "TextInput",
    _W + "AutoCompleteTextView": "TextInput",
    _W + "MultiAutoCompleteTextView": "TextInput",
    _AX + "AppCompatAutoCompleteTextView": "TextInput",
    _W + "SearchView$SearchAutoComplete": "TextInput",
    _AX + "SearchView$SearchAutoComplete": "TextInput",
    "android.inputmethodservice.ExtractEditText": "TextInput",
    # buttons
    _W + "Button": "Button",
    _AX + "AppCompatButton": "Button",
    _V7 + "AppCompatButton": "Button",
    _MAT + "button.MaterialButton": "Button",
    _MAT + "floatingactionbutton.FloatingActionButton": "Button",
    _MAT + "floatingactionbutton.ExtendedFloatingActionButton": "Button",
    _MAT + "chip.Chip": "Chip",
    _W + "ImageButton": "ImageButton",
    _AX + "AppCompatImageButton": "ImageButton",
    _V7 + "AppCompatImageButton": "ImageButton",
    # images and media
    _W + "ImageView": "Image",
    _W + "Image": "Image",
    _AX + "AppCompatImageView": "Image",
    _V7 + "AppCompatImageView": "Image",
    _MAT + "imageview.ShapeableImageView": "Image",
    _W + "VideoView": "Video",
    "android.view.SurfaceView": "Surface",
    "android.view.TextureView": "Surface",
    # two-state controls
    _W + "CheckBox": "CheckBox",
    _AX + "AppCompatCheckBox": "CheckBox",
    _V7 + "AppCompatCheckBox": "CheckBox",
    _MAT + "checkbox.MaterialCheckBox": "CheckBox",
    _W + "CheckedTextView": "CheckBox",
    _AX + "AppCompatCheckedTextView": "CheckBox",
    _W + "Switch": "Switch",
    _AX + "SwitchCompat": "Switch",
    _V7 + "SwitchCompat": "Switch",
    _MAT + "switchmaterial.SwitchMaterial": "Switch",
    _MAT + "materialswitch.MaterialSwitch": "Switch",
    _W + "RadioButton": "Radio",
    _AX + "AppCompatRadioButton": "Radio",
    _V7 + "AppCompatRadioButton": "Radio",
    _MAT + "radiobutton.MaterialRadioButton": "Radio",
    _W + "RadioGroup": "RadioGroup",
    _W + "ToggleButton": "Toggle",
    _W + "CompoundButton": "Toggle",
    # ranges
    _W + "SeekBar": "Slider",
    _AX + "AppCompatSeekBar": "Slider",
    _MAT + "slider.Slider": "Slider",
    _MAT + "slider.RangeSlider": "Slider",
    _W + "RatingBar": "Rating",
    _AX + "AppCompatRatingBar": "Rating",
    _W + "ProgressBar": "Progress",
    _MAT + "progressindicator.LinearProgressIndicator": "Progress",
    _MAT + "progressindicator.CircularProgressIndicator": "Progress",
    _W + "NumberPicker": "Picker",
    _W + "DatePicker": "Picker",
    _W + "TimePicker": "Picker",
    _W + "Spinner": "Select",
    _AX + "AppCompatSpinner": "Select",
    _V7 + "AppCompatSpinner": "Select",
    # collections
    "androidx.recyclerview.widget.RecyclerView": "List",
    _V7 + "RecyclerView": "List",
    _W + "ListView": "List",
    _W + "GridView": "List",
    _W + "ExpandableListView": "List",
    _W + "ScrollView": "ScrollView",
    _W + "HorizontalScrollView": "ScrollView",
    "androidx.core.widget.NestedScrollView": "ScrollView",
    "android.support.v4.widget.NestedScrollView": "ScrollView",
    "androidx.viewpager.widget.ViewPager": "Pager",
    "androidx.viewpager2.widget.ViewPager2": "Pager",
    "android.support.v4.view.ViewPager": "Pager",
    "com.android.internal.widget.ViewPager": "Pager",
    "com.android.launcher3.PagedView": "Pager",
    _W + "ViewFlipper": "Pager",
    _W + "ViewAnimator": "Pager",
    # tabs and navigation
    _MAT + "tabs.TabLayout": "TabList",
    _W + "TabWidget": "TabList",
    _W + "TabHost": "Group",
    _MAT + "tabs.TabItem": "Tab",
    _MAT + "tabs.TabLayout$TabView": "Tab",
    "androidx.appcompat.app.ActionBar.Tab": "Tab",
    "androidx.appcompat.app.ActionBar$Tab": "Tab",
    "android.app.ActionBar$Tab": "Tab",
    _MAT + "bottomnavigation.BottomNavigationView": "TabList",
    _MAT + "navigation.NavigationView": "Navigation",
    _W + "Toolbar": "Toolbar",
    _AX + "Toolbar": "Toolbar",
    _V7 + "Toolbar": "Toolbar",
    "android.webkit.WebView": "WebView",
    # plain containers: collapse when they carry nothing
    _W + "LinearLayout": "Group",
    _W + "RelativeLayout": "Group",
    _W + "FrameLayout": "Group",
    _W + "GridLayout": "Group",
    _W + "TableLayout": "Group",
    _W + "TableRow": "Group",
    _W + "AbsoluteLayout": "Group",
    "android.view.ViewGroup": "Group",
    "androidx.constraintlayout.widget.ConstraintLayout": "Group",
    "android.support.constraint.ConstraintLayout": "Group",
    "androidx.coordinatorlayout.widget.CoordinatorLayout": "Group",
    "android.support.design.widget.CoordinatorLayout": "Group",
    _AX + "LinearLayoutCompat": "Group",
    _V7 + "LinearLayoutCompat": "Group",
    "androidx.cardview.widget.CardView": "Group",
    "android.support.v7.widget.CardView": "Group",
    _MAT + "card.MaterialCardView": "Group",
    _MAT + "appbar.AppBarLayout": "Group",
    "androidx.drawerlayout.widget.DrawerLayout": "Group",
    "android.support.v4.widget.DrawerLayout": "Group",
    "androidx.swiperefreshlayout.widget.SwipeRefreshLayout": "Group",
    "androidx.compose.ui.platform.ComposeView": "Group",
    "androidx.compose.ui.platform.AndroidComposeView": "Group",
    "androidx.compose.ui.viewinterop.ViewFactoryHolder": "Group",
    "android.appwidget.AppWidgetHostView": "Group",
    # Compose emits almost everything as android.view.View
    "android.view.View": "View",
    "": "View",
}

#: Roles of pure containers: with no ref, label or state and one child, they disappear.
WRAPPER_ROLES: frozenset[str] = frozenset({"Group", "View"})

# Suffix rules for classes not in ROLES (custom subclasses keep their base's role).
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("EditText", "TextInput"),
    ("AutoCompleteTextView", "TextInput"),
    ("CheckedTextView", "CheckBox"),
    ("TextView", "Text"),
    ("ImageButton", "ImageButton"),
    ("ImageView", "Image"),
    ("CheckBox", "CheckBox"),
    ("RadioButton", "Radio"),
    ("ToggleButton", "Toggle"),
    ("Switch", "Switch"),
    ("SwitchCompat", "Switch"),
    ("Button", "Button"),
    ("SeekBar", "Slider"),
    ("ProgressBar", "Progress"),
    ("Spinner", "Select"),
    ("RecyclerView", "List"),
    ("ListView", "List"),
    ("GridView", "List"),
    ("ScrollView", "ScrollView"),
    ("ViewPager", "Pager"),
    ("ViewPager2", "Pager"),
    ("TabLayout", "TabList"),
    ("TabView", "Tab"),
    ("WebView", "WebView"),
    ("Toolbar", "Toolbar"),
    ("ComposeView", "Group"),
    ("CardView", "Group"),
    ("LayoutCompat", "Group"),
    ("Layout", "Group"),
    ("ViewGroup", "Group"),
    ("ViewGroupExt", "Group"),
    ("Container", "Group"),
)

_NAME_OK = re.compile(r"[A-Z][A-Za-z0-9_]{3,}")
_EDITABLE_ROLES = frozenset({"TextInput"})
_SCROLLER_ROLES = frozenset({"List", "ScrollView", "Pager"})


class ClassInfo(NamedTuple):
    """What the pruner needs to know about one Android class name."""

    role: str
    wrapper: bool
    editable: bool
    scroller: bool
    """the role itself says "scrolls" (List, ScrollView, Pager): no ``scrollable`` state"""


def _role_uncached(cls: str) -> str:
    if not cls:
        return "View"
    for suffix, role in _SUFFIXES:
        if cls.endswith(suffix):
            return role
    last = cls.rsplit(".", 1)[-1]
    if "$" in last:
        head, _, tail = last.rpartition("$")
        last = tail if _NAME_OK.fullmatch(tail) else head
    # Obfuscated (``joV``, ``k``, ``z0``) or odd names say nothing: call them View.
    return last if _NAME_OK.fullmatch(last) else "View"


_CACHE: dict[str, ClassInfo] = {}
_CACHE_MAX = 4096


def class_info(cls: str) -> ClassInfo:
    """Role, wrapper-ness and editability of class name ``cls`` (cached)."""
    info = _CACHE.get(cls)
    if info is None:
        role = ROLES.get(cls)
        if role is None:
            role = _role_uncached(cls)
        info = ClassInfo(
            role, role in WRAPPER_ROLES, role in _EDITABLE_ROLES, role in _SCROLLER_ROLES
        )
        if len(_CACHE) < _CACHE_MAX:  # hostile dumps cannot grow it without bound
            _CACHE[cls] = info
    return info


def role_for_class(cls: str) -> str:
    """The snapshot role of Android class name ``cls`` (``android.widget.Button`` → ``Button``)."""
    return class_info(cls).role
