package dev.limiter.sample;

import org.springframework.stereotype.Service;

import dev.limiter.annotation.RateLimit;

/**
 * A limited service method outside the web layer: 2 exports a minute per tenant, however
 * it is called.
 */
@Service
class ReportService {

	@RateLimit(key = "#tenant", period = 60, threshold = 2)
	String export(String tenant) {
		return "report-for-" + tenant + ".csv";
	}

}
