"""Receipts: results that only acknowledge an action, so an answer need not repeat them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["is_receipt"]

# Words that say an action was done, in the languages the answer rules read (an
# acknowledgement, not a fact the question asks for).
_DONE = re.compile(
    r"(?:\b(?:ok|okay|success|successful|successfully|succeeded|done|sent|queued|created|"
    r"deleted|removed|updated|saved|scheduled|booked|accepted|added|cancel+ed|confirmed|"
    r"completed|submitted|posted|stored|written|moved|copied|renamed|enqueued|acknowledged|"
    r"reserved|envoyé|créé|supprimé|terminé|enregistré|réservé|gesendet|erstellt|gelöscht|"
    r"erledigt|gespeichert|gebucht|reservado|"
    r"enviado|creado|eliminado|guardado|enviada|criado|отправлено|создано|удалено|"
    r"сохранено|готово|забронировано)\b|成功|已发送|已发出|已创建|已删除|已更新|已保存|已完成|完成|已添加|"
    r"已取消|已预订|已确认|已提交|送信しました|完了|保存しました|작성|완료|전송)",
    re.IGNORECASE,
)
_RECEIPT_CHARS = 200
_OK_VALUES = frozenset({"ok", "okay", "success", "succeeded", "done", "sent", "queued",
                        "created", "true", "accepted", "completed", "200", "201", "204"})  # fmt: skip


def is_receipt(text: str) -> bool:
    """Whether a result only acknowledges an action (``queued: message id 5521``,
    ``{"status": "ok"}``, ``已发送``): nothing in it is a fact an answer must repeat.

    Short (at most 200 characters), and saying it was done in words with no number but an
    identifier (``message id 5521``, ``AF7731``; a date or a price is a fact), or an object
    whose values say so (a status, a success flag), or nothing at all (``null``, ``{}``).
    """
    stripped = text.strip()
    if not stripped or stripped in ("null", "{}", "[]", '""', "true", "None"):
        return True
    if len(stripped) > _RECEIPT_CHARS:
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        value = None
    if isinstance(value, Mapping):
        return _says_done(value)
    return _DONE.search(stripped) is not None and not _facts_in(stripped)


# What marks a number as an identifier: a label before it, or letters glued to it.
_ID_BEFORE = re.compile(
    r"(?:\bid|#|\bno\.?|\bnumber|\bref|\bcode|confirmation|编号|单号|订单号|番号|номер|№)\W{0,3}$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w-])\d[\d.,]*(?![\w-])")


def _facts_in(text: str) -> bool:
    """Whether ``text`` holds a number that is no identifier (a date, a price, a count)."""
    return any(
        not _ID_BEFORE.search(text[max(0, m.start() - 16) : m.start()])
        for m in _NUMBER.finditer(text)
    )


def _says_done(value: Mapping[str, Any]) -> bool:
    for key in ("status", "success", "ok", "result", "state", "message"):
        said = value.get(key)
        if said is True or (isinstance(said, str | int) and str(said).lower() in _OK_VALUES):
            return True
        if isinstance(said, str) and _DONE.search(said):
            return True
    return False
