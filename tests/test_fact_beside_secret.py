"""A fact that shares its message with a secret is found; the secret's redacted value is held by nothing."""
from memory.embed import LocalMiniLM
from tests.helpers import at, open_engram


def test_a_fact_beside_a_redacted_password_answers_its_question():
    engram = open_engram(embedder=LocalMiniLM())
    try:
        engram.remember("I'm allergic to penicillin; my patient portal password is Hx7!rq92Zt.",
                        at=at("2024-03-01T09:51:00"))
        engram.remember("The portal at work is down again.", at=at("2024-03-02T09:58:00"))
        engram.remember("Pollen season is starting.", at=at("2024-03-03T10:05:00"))
        result = engram.recall("What am I allergic to?", as_of=at("2024-04-01T00:00:00"))
        assert "penicillin" in result.results[0].unit.content
        assert "Hx7!rq92Zt" not in " ".join(r.unit.content for r in result.results)
        held = [r.unit for r in engram.recall("What is my patient portal password?").results if r.unit.value]
        assert not any("REDACTED" in unit.value for unit in held)
    finally:
        engram.close()
