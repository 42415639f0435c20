"""harness.py - what harness.h is to the C host tests, for the Python ones
(tests/host/*_test.py): @case runs a case function at once and records
its result, its failure being an assertion's message or, for any other
exception (a crash of the code under test), its type and message;
report() prints one line per case, "TEST <name> PASS" or "TEST <name>
FAIL <reason>", then "N passed, M failed", and returns the exit status
(1 if any case failed)."""

results = []


def case(fn):
    try:
        fn()
        results.append((fn.__name__, None))
    except AssertionError as e:
        results.append((fn.__name__, str(e) or "assertion failed"))
    except Exception as e:
        results.append((fn.__name__, "%s: %s" % (type(e).__name__, e)))
    return fn


def report():
    failed = 0
    for name, why in results:
        if why:
            failed += 1
            print("TEST %s FAIL %s" % (name, why.replace("\n", " ")))
        else:
            print("TEST %s PASS" % name)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0
