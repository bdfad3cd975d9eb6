# Sluice: the two set-up commands are `make run` and `make test`; everything else is optional.
MVN ?= mvn -B -ntp
JAR := broker/target/sluice.jar
RUN_ARGS ?= server --demo-workload

.PHONY: run test build it bench bench-quick deps clean

## run: one broker on the embedded default (embedded PostgreSQL + demo workload), gRPC :8300, admin :8301
run: build
	java -jar $(JAR) $(RUN_ARGS)

build:
	$(MVN) -q -DskipTests install

## test: install what tests need that Maven cannot bring, then run every module's tests
test: deps
	$(MVN) install

deps:
	./scripts/install-test-deps.sh

## it: the integration suite (real processes, fault injection)
it: deps
	$(MVN) -DskipTests install
	$(MVN) verify -pl it

## bench: end-to-end benchmarks (it/ harness and the capture benchmark); writes docs/BENCHMARKS.md
## and docs/benchmarks.json
bench: deps
	./scripts/bench.sh full
	./scripts/bench-capture.sh

## bench-quick: a reduced version of every figure, for regressions (under 10 minutes)
bench-quick: deps
	./scripts/bench.sh quick

clean:
	$(MVN) -q clean
